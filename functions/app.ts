// The HTTP surface: Hono on Web-standard Request/Response.
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { ConfigurationError, type Env } from "./config/index.js";
import { snapshot } from "./routes/snapshot.js";
import { validate } from "./routes/validate.js";

export const app = new Hono<{ Bindings: Env }>();

app.get("/healthz", (c) => c.json({ ok: true }));
app.route("/v1", validate);
app.route("/v1", snapshot);

app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${new URL(c.req.url).pathname}` }, 404));
app.onError((error, c) => {
  if (error instanceof HTTPException) return c.json({ error: error.message || "bad request" }, error.status);
  if (error instanceof ConfigurationError) return c.json({ error: `the function is misconfigured: ${error.message}` }, 500);
  console.error(error);
  return c.json({ error: "internal error" }, 500);
});
