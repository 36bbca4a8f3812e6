"""A deliberately naive client: 4 threads share the N reads, no spacing, and every 429/503 is
retried at once, up to 8 attempts. The standard library only.

usage: naive_client.py BASE_URL N — prints the final statuses. Bounded: N requests × 8 attempts.
A connection error is retried like a refusal (a naive client does that too); a read that never got
an HTTP answer, or a worker that died, makes the script exit 1 with the reason on stderr, so the
test says why instead of judging a log that holds only some of the reads.
"""
import sys
import threading
import traceback
import urllib.error
import urllib.request

base, n = sys.argv[1], int(sys.argv[2])
statuses = [None] * n
errors = []


def fetch(i):
    for _ in range(8):
        req = urllib.request.Request(f"{base}/items/{i}", headers={"X-Client-Id": "naive"})
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                statuses[i] = r.status
                return
        except urllib.error.HTTPError as e:
            statuses[i] = e.code
            if e.code not in (429, 503):
                return
        except OSError as e:  # URLError, resets, timeouts: retried at once, like a refusal
            errors.append(f"read {i}: {e!r}")


def worker(k):
    try:
        for i in range(k, n, 4):
            fetch(i)
    except Exception:
        errors.append(traceback.format_exc())


threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(" ".join(str(s) for s in statuses))
if errors:
    print("\n".join(errors), file=sys.stderr)
missing = [i for i, s in enumerate(statuses) if s is None]
if missing:
    print(f"no HTTP answer for reads {missing}", file=sys.stderr)
    sys.exit(1)
