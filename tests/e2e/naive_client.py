"""A deliberately naive client: 4 threads share the N reads, no spacing, and every 429/503 is
retried at once, up to 8 attempts. The standard library only.

usage: naive_client.py BASE_URL N — prints the final statuses. Bounded: N requests × 8 attempts.
"""
import sys
import threading
import urllib.error
import urllib.request

base, n = sys.argv[1], int(sys.argv[2])
statuses = [None] * n


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


def worker(k):
    for i in range(k, n, 4):
        fetch(i)


threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(" ".join(str(s) for s in statuses))
