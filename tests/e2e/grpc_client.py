"""The emitted grpc-service-config.json in a real grpcio channel, against a grpcio server on
loopback that refuses as a rate-limited gRPC service does (`toomany mock` speaks HTTP/1.1, which a
gRPC channel cannot use).

usage: grpc_client.py CONFIG_DIR — prints one JSON object: per scenario, the server's attempt
times (seconds since the call) and the final status the client saw.
  plain      every attempt refused with RESOURCE_EXHAUSTED: the retry policy's attempts and waits
  pushback   the first attempt refused with grpc-retry-pushback-ms, the second admitted
  throttled  after `plain`'s failures (retryThrottling's tokens spent), one more refused call
Bounded: a handful of calls, each within the config's own timeout.
"""
import json
import sys
import time
from concurrent import futures

import grpc

cfg = json.load(open(sys.argv[1] + "/grpc-service-config.json"))
for method in cfg["methodConfig"]:
    method["name"] = [{"service": "toomany.e2e.Items"}]

PUSHBACK_MS = 300
script = {}  # scenario -> list of (status or None, pushback ms or None), one per attempt
seen = {}  # scenario -> attempt times (monotonic)


def handle(request, context):
    scenario = request.decode()
    times = seen.setdefault(scenario, [])
    times.append(time.monotonic())
    plan = script[scenario]
    status, pushback = plan[min(len(times), len(plan)) - 1]
    if status is None:
        return b"ok"
    if pushback is not None:
        context.set_trailing_metadata((("grpc-retry-pushback-ms", str(pushback)),))
    context.abort(status, "rate limited")


server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
    "toomany.e2e.Items",
    {"Get": grpc.unary_unary_rpc_method_handler(handle)},
),))
port = server.add_insecure_port("127.0.0.1:0")
server.start()


def channel():
    """A channel of its own: retryThrottling's tokens are per channel."""
    ch = grpc.insecure_channel(f"127.0.0.1:{port}", options=[
        ("grpc.service_config", json.dumps(cfg)),
        ("grpc.enable_retries", 1),
    ])
    grpc.channel_ready_future(ch).result(timeout=10)
    return ch


out = {}
refused = (grpc.StatusCode.RESOURCE_EXHAUSTED, None)
fresh, spent = channel(), channel()
for scenario, ch, plan in [
    ("pushback", fresh, [(grpc.StatusCode.RESOURCE_EXHAUSTED, PUSHBACK_MS), (None, None)]),
    ("plain", spent, [refused]),
    ("throttled", spent, [refused]),
]:
    script[scenario] = plan
    start = time.monotonic()
    try:
        ch.unary_unary("/toomany.e2e.Items/Get")(scenario.encode(), timeout=30)
        final = "OK"
    except grpc.RpcError as e:
        final = e.code().name
    out[scenario] = {
        "attempts": [round(t - start, 4) for t in seen.get(scenario, [])],
        "final": final,
    }
out["pushback_ms"] = PUSHBACK_MS
print(json.dumps(out))
fresh.close()
spent.close()
server.stop(0)
