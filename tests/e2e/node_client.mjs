// Reads through the Node bottleneck + p-retry client `toomany plan --emit-config` wrote
// (toomany-client.mjs). usage: node node_client.mjs CONFIG_DIR BASE_URL N — one GET of
// BASE_URL/items/i for i < N, in order; prints each logical request's final status (or
// `gave-up`). Bounded: N requests, at most the plan's attempts each.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, base, n] = process.argv.slice(2);
const { call } = await import(pathToFileURL(join(resolve(dir), "toomany-client.mjs")).href);
const out = [];
for (let i = 0; i < Number(n); i++) {
  try {
    const r = await call("GET", () => fetch(`${base}/items/${i}`, { headers: { "X-Client-Id": "node" } }));
    await r.arrayBuffer();
    out.push(String(r.status));
  } catch (e) {
    out.push(e?.response ? String(e.response.status) : "gave-up");
  }
}
console.log(out.join(" "));
// bottleneck's reservoir refresh timer would keep the process alive.
process.exit(0);
