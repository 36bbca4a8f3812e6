#!/usr/bin/env python3
"""One example of each secret shape a gitleaks config describes, as JSON lines.

    scripts/secret-shapes.py GITLEAKS_TOML > tests/fixtures/secret-shapes/shapes.jsonl

Each rule's regex is walked (Python's regex parser) to build one string it matches, with
random letters and digits where the regex leaves them open (a fixed seed: the same config gives
the same file); a rule that finds a secret by a keyword before it gets the keyword as gitleaks'
own true positives spell it (`adafruitToken = "…"`). Each line: {"rule": id, "text": the whole match (keyword, assignment and
secret, where the rule needs them), "secret": the part the rule calls the secret (its secret
group, else its first group, else the whole match)}. Rules that match only by file path, and
regexes this walker cannot follow, are left out and counted on stderr.
"""
import json
import random
import re
import sys
import tomllib

try:
    import re._parser as sre_parse  # Python >= 3.11
    import re._constants as C
except ImportError:  # pragma: no cover
    import sre_parse
    import sre_constants as C

RNG = random.Random(41)
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
POSIX = {
    "[:alnum:]": "a-zA-Z0-9",
    "[:alpha:]": "a-zA-Z",
    "[:digit:]": "0-9",
    "[:xdigit:]": "0-9a-fA-F",
    "[:upper:]": "A-Z",
    "[:lower:]": "a-z",
    "[:space:]": r"\s",
    "[:word:]": r"\w",
    "[:punct:]": r"!-/:-@\[-`{-~",
}


def to_python(rx):
    """Go RE2 syntax to Python's: inline flags mid-pattern, POSIX classes, \\z."""
    for k, v in POSIX.items():
        rx = rx.replace(k, v)
    rx = rx.replace(r"\z", r"\Z").replace(r"\p{L}", "a-zA-Z")
    flags = 0
    if "(?i)" in rx:
        flags |= re.I
        rx = rx.replace("(?i)", "")
    if "(?s)" in rx:
        flags |= re.S
        rx = rx.replace("(?s)", "")
    rx = rx.replace("(?-i:", "(?:")
    return rx, flags


def chars_of(items):
    """Candidate characters of a class (IN) and whether it is negated."""
    out, neg = [], False
    for op, av in items:
        if op == C.NEGATE:
            neg = True
        elif op == C.LITERAL:
            out.append(chr(av))
        elif op == C.RANGE:
            lo, hi = av
            out.extend(chr(c) for c in range(lo, min(hi, lo + 200) + 1))
        elif op == C.CATEGORY:
            out.extend(category(av))
    return out, neg


def category(av):
    if av == C.CATEGORY_DIGIT:
        return list("0123456789")
    if av == C.CATEGORY_SPACE:
        return [" "]
    if av == C.CATEGORY_WORD:
        return list(ALNUM)
    if av == C.CATEGORY_NOT_SPACE:
        return list(ALNUM)
    if av == C.CATEGORY_NOT_DIGIT:
        return list("abcdefgh")
    return list("-")


def pick(cands, neg):
    if neg:
        pool = [c for c in ALNUM + " -_.:/" if c not in cands]
        return pool[0] if pool else "~"
    printable = [c for c in cands if 32 <= ord(c) < 127]
    cands = printable or cands
    # A class that allows a space or a quote is context: take those; else a random char.
    for c in ' ="':
        if c in cands and not any(x.isalnum() for x in cands):
            return c
    return RNG.choice(cands)


class Gen:
    def __init__(self):
        self.groups = {}
        self.repeating = 0

    def walk(self, tokens):
        return "".join(self.one(op, av) for op, av in tokens)

    def one(self, op, av):
        if op == C.LITERAL:
            return chr(av)
        if op == C.NOT_LITERAL:
            return "a" if chr(av) != "a" else "b"
        if op == C.ANY:
            # An unescaped `.` alone in a rule is most often a literal dot (`hooks.slack.com`);
            # repeated, it is any character.
            return RNG.choice(ALNUM) if self.repeating else "."
        if op == C.IN:
            return pick(*chars_of(av))
        if op == C.CATEGORY:
            return pick(category(av), False)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            lo, hi, sub = av
            n = lo if lo > 0 or hi == 0 else 0
            if lo == 0 and self.needs(sub):
                n = 1
            if op == C.MAX_REPEAT and n == 0 and lo == 0 and hi != C.MAXREPEAT and hi >= 8 and self.secretish(sub):
                n = min(hi, 24)
            if op == C.MAX_REPEAT and hi == C.MAXREPEAT and self.secretish(sub):
                # `+` in a token: a realistic length, not the shortest.
                n = max(n, 12)
            self.repeating += 1
            s = "".join(self.walk(sub) for _ in range(n))
            self.repeating -= 1
            return s
        if op == C.SUBPATTERN:
            gid, _, _, sub = av
            s = self.walk(sub)
            if gid is not None:
                self.groups[gid] = s
            return s
        if op == C.BRANCH:
            _, alts = av
            return self.walk(alts[0])
        if op == C.AT:
            return ""
        if op == C.GROUPREF:
            return self.groups.get(av, "")
        if op in (C.ASSERT, C.ASSERT_NOT):
            return ""
        raise ValueError(f"unsupported {op}")

    @staticmethod
    def needs(sub):
        return any(op == C.SUBPATTERN and av[0] is not None for op, av in sub)

    @staticmethod
    def secretish(sub):
        return all(op == C.IN for op, _ in sub) and len(sub) == 1 and " " not in chars_of(sub[0][1])[0]


def example(rule):
    rx, flags = to_python(rule["regex"])
    parsed = sre_parse.parse(rx, flags)
    for _ in range(20):
        g = Gen()
        text = g.walk(list(parsed))
        m = re.search(rx, text, flags)
        if not m:
            continue
        # Named groups are parts of the shape (gitleaks' jwt-base64), not its secret.
        k = rule.get("secretGroup") or (1 if m.re.groups and not m.re.groupindex else 0)
        secret = m.group(k) or ""
        if len(secret) >= 8:
            return as_assigned(rule, rx, flags, k, secret) or text, secret
    return None


def as_assigned(rule, rx, flags, k, secret):
    """A rule that finds a secret by a keyword before it gets the keyword as gitleaks' own
    true positives spell it (`GenerateSampleSecrets`' INI form): `{keyword}Token = "{secret}"`,
    when the rule's regex finds the same secret in that."""
    m = re.search(r"\{0,50\}\?(?:\(\?i:)?(?:\[[^]]*\]\{0,50\}\?)?\(\?:(?:\(\?-i:)?([A-Za-z0-9_. -]+?)[|)]", rule["regex"])
    if not m:
        return None
    text = f'{m.group(1)}Token = "{secret}"'
    found = re.search(rx, text, flags)
    if found and found.group(k) == secret:
        return text
    return None


def main():
    with open(sys.argv[1], "rb") as f:
        cfg = tomllib.load(f)
    skipped = []
    for rule in cfg["rules"]:
        if "regex" not in rule:
            skipped.append((rule["id"], "path only"))
            continue
        try:
            got = example(rule)
        except (ValueError, re.error, KeyError, TypeError) as e:
            skipped.append((rule["id"], str(e)))
            continue
        if not got:
            skipped.append((rule["id"], "no match of 8+ characters"))
            continue
        text, secret = got
        print(json.dumps({"rule": rule["id"], "text": text, "secret": secret}))
    for rid, why in skipped:
        print(f"skipped {rid}: {why}", file=sys.stderr)


if __name__ == "__main__":
    main()
