// The end-to-end floor: a Worker that reads the AdmissionReview and allows it,
// served by the same workerd and wrangler.toml as the function. What the
// function costs beyond this is routing, decoding, policies and encoding.

// wrangler.toml binds this Durable Object class, so every entry must export it; the no-op never uses it.
export { SnapshotStore } from "../functions/store/index.js";

export default {
  async fetch(request: Request): Promise<Response> {
    const body = (await request.json()) as { request?: { uid?: string } };
    return Response.json({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: body.request?.uid ?? "", allowed: true } });
  },
};
