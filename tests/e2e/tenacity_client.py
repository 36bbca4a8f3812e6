"""Reads through the tenacity policy `toomany plan --emit-config` wrote (toomany_tenacity.py), with
the Spacer of toomany_retry.py in front of every attempt (tenacity has no rate limit of its own).

usage: tenacity_client.py CONFIG_DIR BASE_URL N — one GET of BASE_URL/items/i for i < N; prints
each logical request's final status. Bounded: N requests, at most the plan's attempts each.
"""
import sys

sys.path.insert(0, sys.argv[1])
import requests  # noqa: E402
from toomany_retry import ATTEMPT_TIMEOUT_S, Spacer  # noqa: E402
from toomany_tenacity import retry_policy  # noqa: E402

base, n = sys.argv[2], int(sys.argv[3])
spacer = Spacer()
http = requests.Session()  # no urllib3 retries: tenacity is the only retry layer


@retry_policy
def get(url):
    spacer.wait()
    return http.get(url, timeout=ATTEMPT_TIMEOUT_S, headers={"X-Client-Id": "tenacity"})


print(" ".join(str(get(f"{base}/items/{i}").status_code) for i in range(n)))
