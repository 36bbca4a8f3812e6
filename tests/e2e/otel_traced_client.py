"""A traced client with two retry layers, against `toomany mock`: the spans go to an OTLP/JSON
file, one line per export batch, through the OpenTelemetry Python SDK's own file exporter.

    otel_traced_client.py BASE_URL SPANS_FILE SERVICE MODE N

MODE `nested`: an application retry loop (span `app.fetch`, up to 3 rounds 1 s apart) around an
SDK call (span `sdk.get`, up to 3 attempts 50 ms apart, each one HTTP CLIENT span made by
opentelemetry-instrumentation-requests): one logical read may cost 3 × 3 attempts.
MODE `plain`: one attempt per read, no retries.

Every request carries a query-string token (`api_key=...`), the span an attribute named like a
credential, so a test can check that no secret reaches toomany's output. Prints one status per
attempt.
"""

import sys
import time

import requests
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.instrumentation.requests import RequestsInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

CANARY = "tmcanary-4f1d9c2b7e"


def sdk_get(tracer, session, url):
    """A vendor SDK's call: its own retry loop, blind to Retry-After."""
    with tracer.start_as_current_span("sdk.get"):
        for attempt in range(3):
            r = session.get(url, timeout=10)
            print(r.status_code, flush=True)
            if r.status_code != 429:
                return r
            time.sleep(0.05)
        return r


def main():
    base, out, service, mode, n = sys.argv[1:6]
    provider = TracerProvider(
        resource=Resource.create({"service.name": service, "service.instance.id": service + "-1"}),
        shutdown_on_exit=False,
    )
    exporter = FileSpanExporter(out)
    provider.add_span_processor(BatchSpanProcessor(exporter, max_export_batch_size=8, schedule_delay_millis=200))
    trace.set_tracer_provider(provider)
    RequestsInstrumentor().instrument(tracer_provider=provider)
    tracer = trace.get_tracer("otel_traced_client")
    session = requests.Session()
    for i in range(int(n)):
        url = f"{base}/v1/invoices/{i}?api_key={CANARY}"
        with tracer.start_as_current_span("job.item") as job:
            job.set_attribute("app.secret_token", CANARY)
            if mode == "plain":
                r = session.get(url, timeout=10)
                print(r.status_code, flush=True)
                continue
            with tracer.start_as_current_span("app.fetch"):
                for round_ in range(3):
                    r = sdk_get(tracer, session, url)
                    if r.status_code != 429:
                        break
                    time.sleep(1.0)
    provider.force_flush()
    provider.shutdown()


if __name__ == "__main__":
    main()
