// The no-op twin's whole job: read the AdmissionReview, allow it. Shared by the
// Worker (bench/noop-worker.ts) and the in-process comparison (bench/app.ts).
export async function allowAll(request: Request): Promise<Response> {
  const body = (await request.json()) as { request?: { uid?: string } };
  return Response.json({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: body.request?.uid ?? "", allowed: true } });
}
