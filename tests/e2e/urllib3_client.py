"""Reads through the urllib3/requests policy `toomany plan --emit-config` wrote (toomany_retry.py).

usage: urllib3_client.py CONFIG_DIR BASE_URL N  — one GET of BASE_URL/items/i for i < N, in order;
prints each logical request's final status (or `gave-up`). A bounded loop: N requests, and
urllib3 makes at most the plan's attempts for each.
"""
import sys

sys.path.insert(0, sys.argv[1])
import requests  # noqa: E402
from toomany_retry import session  # noqa: E402

base, n = sys.argv[2], int(sys.argv[3])
s = session()
out = []
for i in range(n):
    try:
        out.append(str(s.get(f"{base}/items/{i}", headers={"X-Client-Id": "urllib3"}).status_code))
    except requests.exceptions.RetryError:
        out.append("gave-up")
print(" ".join(out))
