"""Secrets that span lines: private-key blocks (PEM, base64 of one, DER, PuTTY, XML key values), a Kubernetes
Secret's data, a YAML block scalar under a password's name, a value on the line after its name, Terraform's and
CloudFormation's defaults, lists of passwords, plist pairs and a call split over several lines.

Each `*_changes(text, …)` reads a whole text and returns {line start: new line}, so every replacement keeps the
line structure (a line rewritten, never joined or dropped) and chunk coordinates stay exact; redact.py applies
them with the one-line forms' changes.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator

from .secret_lines import _TRAILING_COMMENT, _generated_under_secret_name, _redact_line, _redacted_as_assignment
from .secret_names import (
    REDACTED, _IDENT_WORDS, _NOT_A_VALUE, _has_secret_word, _last_word, _name_tier, _secret_name,
)
from .secret_rules import _B64_PEM_PREFIXES
from .secret_tokens import _SAMPLE_PASSWORDS
from .secret_values import _PLACEHOLDER, is_benign_value, looks_random

# A PEM (or PGP) private key: every base64 run between BEGIN and END is the secret,
# on however many lines, whatever quotes, `+` or `\n` escapes hold them together.
# (also an SSH2 key's `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`)
_PEM_MARK = re.compile(r"-----(BEGIN|END) (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                       r"|---- (BEGIN|END) SSH2 (?:[A-Z0-9]+ )*PRIVATE KEY ----")
_PEM_RUN = re.compile(r"\[REDACTED\]|\\[nrt]|(?P<b>[A-Za-z0-9+/]+={0,2})")
# A real key body holds long runs (64 per line); a doc's `MIIE...` or `<key>` does not.
_PEM_LONG = re.compile(r"[A-Za-z0-9+/]{20,}")
_PEM_B64 = re.compile(r"[A-Za-z0-9+/]")
# One line of a key body, alone on its line: in a string literal, a concatenation, a quote.
_PEM_LINE = re.compile(
    r"""[ \t>*]*[+,]?[ \t]*(?:@?["'`])?(?:\\[nr])*[A-Za-z0-9+/]+={0,2}(?:\\[nr])*["'`]?[ \t]*[+,;)\\]*[ \t]*\r?""")
_PEM_HEADER = re.compile(r"[ \t\"'`]*(?:Proc-Type|DEK-Info|Comment|Version|Hash):.*")


def _pem_body_end(text: str, pos: int) -> int:
    """Where the body of a BEGIN marker with no END after it ends: its line's end, then every body line."""
    end = text.find("\n", pos)
    if end < 0:
        return len(text)
    header = True
    while end < len(text):
        nxt = text.find("\n", end + 1)
        nxt = len(text) if nxt < 0 else nxt
        line = text[end + 1:nxt]
        if _PEM_LINE.fullmatch(line):
            header = False
        elif not (header and (_PEM_HEADER.fullmatch(line) or not line.strip())):
            break
        end = nxt
    return end


def _pem_body_start(text: str, pos: int) -> int:
    """Where the body of an END marker with no BEGIN before it starts: the body lines above its line."""
    start = text.rfind("\n", 0, pos) + 1
    while start > 0:
        prev = text.rfind("\n", 0, start - 1) + 1
        if not _PEM_LINE.fullmatch(text[prev:start - 1]):
            break
        start = prev
    return start


def _pem_changes(text: str) -> dict[int, str]:
    """{line start: line with its key material redacted} for every private-key
    block of text, also a block cut by a chunk's edge (BEGIN or END missing)."""
    marks = list(_PEM_MARK.finditer(text))
    regions = []
    i = 0
    while i < len(marks):
        m = marks[i]
        if (m.group(1) or m.group(2)) == "BEGIN":
            if i + 1 < len(marks) and (marks[i + 1].group(1) or marks[i + 1].group(2)) == "END":
                regions.append((m.end(), marks[i + 1].start()))
                i += 2
                continue
            regions.append((m.end(), _pem_body_end(text, m.end())))
        else:
            regions.append((_pem_body_start(text, m.start()), m.start()))
        i += 1
    spans: dict[int, list[tuple[int, int]]] = {}
    for a, b in regions:
        if a >= b or not _PEM_LONG.search(text, a, b):
            continue
        if len(set(_PEM_B64.findall(text, a, b))) < 8:
            continue  # a filler body (`abababab…`, `AAAA…`): a key's base64 uses most of its 64 characters
        ls = text.rfind("\n", 0, a) + 1
        while ls <= b:
            le = text.find("\n", ls)
            le = len(text) if le < 0 else le
            spans.setdefault(ls, []).append((max(a, ls) - ls, min(b, le) - ls))
            ls = le + 1
    out = {}
    for ls, cuts in spans.items():
        le = text.find("\n", ls)
        line = text[ls:le if le >= 0 else len(text)]
        parts, done = [], 0
        for lo, hi in sorted(cuts):
            parts.append(line[done:lo])
            parts.append(_PEM_RUN.sub(lambda r: REDACTED if r.group("b") else r.group(0), line[lo:hi]))
            done = hi
        parts.append(line[done:])
        new = "".join(parts)
        if new != line:
            out[ls] = new
    return out


# A PuTTY key file: the N lines after `Private-Lines: N` are the private key.
_PUTTY_PRIVATE = re.compile(r"(?m)^[ \t]*Private-Lines:[ \t]*(\d{1,3})[ \t]*\r?$")
# A Kubernetes Secret: every value under `data:` / `stringData:` is secret, whatever its key's name.
# Raw YAML (`kind: Secret`, also `kind: secret`), or the config chunker's flattened lines (`L2 0:kind = Secret`).
# A value may be a block scalar (`.dockercfg: |` or `>` then its lines, more indented): those lines are the value.
# The kind's value in any case, quoted or not, a comment after it (`kind: SECRET`, `kind: 'secret' # …`). Gated by
# _may_be_secret_kind: `Secret` as written (the common spelling), else `kind` then the value in any case, a search
# from the literal `kind` (re's prefix scan), only in a text holding `kind`.
_K8S_SECRET_KIND = re.compile(r"(?m)^(?:L\d+ (?:(\d+):)?kind = |[ \t]*kind:[ \t]*)(?P<q>[\"']?)(?i:secret)(?P=q)"
                              r"[ \t]*(?:[ \t]#[^\n]*)?\r?$")
_K8S_KIND_HINT = re.compile(r"kind(?::[ \t]*| = )[\"']?(?i:secret)")
_K8S_FLAT_DATA = re.compile(r"(?m)^(?P<head>L\d+ (?:(?P<doc>\d+):)?(?:data|stringData):[^\n=]+ = )(?P<value>[^\n]+)$")
_K8S_DATA_KEY = re.compile(r"^([ \t]*)(?:data|stringData):[ \t]*(?:#.*)?\r?$")
_K8S_CHILD = re.compile(r"^(?P<head>([ \t]+)[\"']?[\w.-]+[\"']?:[ \t]+)(?P<value>[^\s#|>][^\n]*?)[ \t]*\r?$")
_K8S_BLOCK_CHILD = re.compile(r"^([ \t]+)[\"']?[\w.-]+[\"']?:[ \t]+[|>][-+0-9]*[ \t]*(?:#.*)?\r?$")


def _may_be_secret_kind(text: str) -> bool:
    """A cheap test before _K8S_SECRET_KIND: could the text declare a Secret, in any case?"""
    return "Secret" in text or "kind" in text and _K8S_KIND_HINT.search(text) is not None


def _k8s_value(value: str) -> bool:
    v = value.strip().strip("\"'")
    return bool(v) and REDACTED not in v and not is_benign_value(v)


# A Secret's `stringData` fields that say what it is or where it points, not what it keeps (Argo CD's repository
# Secrets: `stringData: {type: helm, url: https://charts.example.com, project: default, name: private-repo}`).
_K8S_DESCRIPTOR_WORDS = frozenset("type url name project server host hostname port username user insecure enableoci "
                                  "proxy noproxy".split())
_K8S_FIELD = re.compile(r"(?:L\d+ (?:\d+:)?stringData:|[ \t]+[\"']?)(?P<key>[\w.-]+)")


def _k8s_descriptor(head: str, value: str) -> bool:
    """A `stringData` field named in _K8S_DESCRIPTOR_WORDS (its last word) whose value does not look generated: kept,
    as a location's name in a section of secrets is (a `data` field is base64: never one)."""
    m = _K8S_FIELD.match(head)
    if not m:
        return False
    key = m.group("key")
    v = value.strip().strip("\"'")
    # (a webhook's URL, `slack-webhook-url`, a name holding a secret's word, `token-url`, a value with a generated
    # piece, `https://example.com/hooks/Zq8v…`, stay the Secret's)
    return (key.lower() in _K8S_DESCRIPTOR_WORDS or _last_word(key) in _K8S_DESCRIPTOR_WORDS) and not (
        _has_secret_word(key) or "hook" in key.lower()) and not any(
        looks_random(piece, 8) for piece in re.split(r"[\s/:.?&=@#,;-]+", v) if piece)


def _k8s_short_b64(value: str) -> bool:
    """A Secret's `data:` value (base64 by the API's definition) of fewer than four characters once decoded
    (`YmFyCg==`, "bar\\n"): too short to be anyone's secret."""
    v = value.strip().strip("\"'")
    if len(v) > 8 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", v) or len(v) % 4:
        return False
    try:
        return len(base64.b64decode(v).strip()) < 4
    except ValueError:
        return False


def _block_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for secrets that span lines and are not PEM blocks:
    a PuTTY key's private lines, the data of a Kubernetes Secret."""
    out: dict[int, str] = {}
    for m in _PUTTY_PRIVATE.finditer(text):
        ls = text.find("\n", m.end()) + 1
        for _ in range(int(m.group(1))):
            if ls <= 0 or ls >= len(text):
                break
            le = text.find("\n", ls)
            le = len(text) if le < 0 else le
            line = done.get(ls, text[ls:le])
            new = _PEM_RUN.sub(lambda r: REDACTED if r.group("b") else r.group(0), line)
            if new != line:
                out[ls] = new
            ls = le + 1
    kinds = list(_K8S_SECRET_KIND.finditer(text)) if _may_be_secret_kind(text) else []
    if kinds:
        flat_docs = {k.group(1) for k in kinds if k.group(0).startswith("L")}
        if any(k.group(0).startswith("L") for k in kinds):
            for m in _K8S_FLAT_DATA.finditer(text):
                if m.group("doc") in flat_docs and _k8s_value(m.group("value")) and not _k8s_descriptor(
                        m.group("head"), m.group("value")):
                    out[m.start()] = m.group("head") + REDACTED
        # raw YAML: documents split at `---`; in one of kind Secret, the children of data/stringData
        pos, docs = 0, []
        for sep in re.finditer(r"(?m)^---[^\n]*$", text):
            docs.append((pos, sep.start()))
            pos = sep.end()
        docs.append((pos, len(text)))
        for a, b in docs:
            if not any(a <= k.start() < b and not k.group(0).startswith("L") for k in kinds):
                continue
            ls, indent = a, None
            while ls < b:
                le = text.find("\n", ls)
                le = b if le < 0 or le > b else le
                line = done.get(ls, text[ls:le])
                data = _K8S_DATA_KEY.match(line)
                if data:
                    indent = len(data.group(1))
                    b64 = line.lstrip().startswith("data:")
                elif indent is not None and line.strip():
                    child = _K8S_CHILD.match(line)
                    block = None if child else _K8S_BLOCK_CHILD.match(line)
                    if len(line) - len(line.lstrip()) <= indent:
                        indent = None
                    elif child and _k8s_value(child.group("value")) and not (
                            b64 and _k8s_short_b64(child.group("value"))) and not (
                            not b64 and _k8s_descriptor(child.group("head"), child.group("value"))):
                        out[ls] = child.group("head") + REDACTED
                    elif block:  # a block scalar: its lines, indented deeper than its key, are the value
                        at, lines = le + 1, []
                        while at < b:
                            e = text.find("\n", at)
                            e = b if e < 0 or e > b else e
                            body = done.get(at, text[at:e])
                            if body.strip() and len(body) - len(body.lstrip()) <= len(block.group(1)):
                                break
                            lines.append((at, body))
                            at = e + 1
                        joined = " ".join(x.strip() for _, x in lines)
                        if _k8s_value(joined) and not (b64 and _k8s_short_b64(joined.replace(" ", ""))):
                            for start, body in lines:
                                if body.strip():
                                    cr = "\r" if body.endswith("\r") else ""
                                    out[start] = body[:len(body) - len(body.lstrip())] + REDACTED + cr
                        le = max(le, at - 1)  # (at: the first line after the block)
                ls = le + 1
    return out


# A password written as a YAML block scalar (`password: |` or `>`, the value on the more indented lines below): a
# name ending in a password's word, each value line that is one word (no blank) redacted; prose under such a name
# (`reset_password: >` then sentences), a `{{ … }}` or `${…}` reference, a name ending elsewhere (`password_help: |`)
# stay. (A Kubernetes Secret's block values are _block_changes'.)
_YAML_BLOCK_PASSWORD = re.compile(
    r"(?im)^(?P<ind>[ \t]*)(?:-[ \t]+)?[\"']?[\w.-]*(?:passw(?:or)?d|passphrase|pwd|secret)[\"']?[ \t]*:[ \t]*"
    r"[|>][-+0-9]*[ \t]*(?:#[^\n]*)?\r?$")


def _block_scalar_lines(text: str, m: re.Match[str], done: dict[int, str]) -> Iterator[tuple[int, str, str]]:
    """(line start, line, its text stripped) for each line of the YAML block scalar whose key line `m` matched (its
    `ind` group the key's indent): up to the first line of text indented no deeper than the key, blank lines too."""
    at = text.find("\n", m.end()) + 1
    while 0 < at < len(text):
        e = text.find("\n", at)
        e = len(text) if e < 0 else e
        body = done.get(at, text[at:e])
        value = body.strip()
        if value and len(body) - len(body.lstrip()) <= len(m.group("ind")):
            return
        yield at, body, value
        at = e + 1


def _one_word(value: str) -> bool:
    return bool(value) and " " not in value and "\t" not in value and REDACTED not in value


def _redacted_block_line(body: str) -> str:
    """A block scalar's line with its value replaced: its indent and a `\r` line end kept."""
    return body[:len(body) - len(body.lstrip())] + REDACTED + ("\r" if body.endswith("\r") else "")


def _yaml_block_password_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the one-word lines of a password's YAML block scalar (_YAML_BLOCK_PASSWORD)."""
    out: dict[int, str] = {}
    for m in _YAML_BLOCK_PASSWORD.finditer(text):
        for at, body, value in _block_scalar_lines(text, m, done):
            if _one_word(value) and not (_PLACEHOLDER.match(value) or value.lower() in _SAMPLE_PASSWORDS):
                out[at] = _redacted_block_line(body)
    return out


# A token's, a key's or a credential's value written as a YAML block scalar (`api_key: >-`, `token: |`, the value on
# the more indented lines below): each one-word line is judged as that value on its name's line (`api_key: …`), as
# settings judge the parsed block; a PEM block under `key: |` is the PEM rules' (a public one stays), a password's
# block is _YAML_BLOCK_PASSWORD's.
_YAML_BLOCK_SECRET = re.compile(
    r"(?im)^(?P<ind>[ \t]*)(?:-[ \t]+)?[\"']?(?P<name>[\w.-]*(?:token|key|credentials?|creds|auth))[\"']?[ \t]*:[ \t]*"
    r"[|>][-+0-9]*[ \t]*(?:#[^\n]*)?\r?$")


def _yaml_block_secret_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the one-word lines of a token's or a key's YAML block scalar
    (_YAML_BLOCK_SECRET) that its name's line would redact."""
    out: dict[int, str] = {}
    for m in _YAML_BLOCK_SECRET.finditer(text):
        name, first = m.group("name"), True
        for at, body, value in _block_scalar_lines(text, m, done):
            if first and value.startswith("-----BEGIN"):
                break
            first = first and not value
            if _one_word(value) and _redact_line(f"{name}: {value}") != f"{name}: {value}":
                out[at] = _redacted_block_line(body)
    return out


# A PEM private key in base64 wrapped over lines (secret_rules' `b64_pem_private_key` redacts its first line): the
# lines after a first line that is all base64 from the prefix to its end, each all base64 (76 or 64 wide), up to
# the first shorter line or one ending in `=`.
_B64_PEM_HEAD = re.compile(r"(?:" + "|".join(_B64_PEM_PREFIXES) + r")[A-Za-z0-9+/]*[ \t]*\r?$", re.M)
_B64_LINE = re.compile(r"[ \t]*(?P<b>[A-Za-z0-9+/]+={0,2})[ \t]*\r?")


def _b64_pem_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the later lines of a base64 PEM private key wrapped over lines."""
    out: dict[int, str] = {}
    for m in _B64_PEM_HEAD.finditer(text):
        ls = text.rfind("\n", 0, m.start()) + 1
        width = len(m.group(0).rstrip(" \t\r"))  # the base64 only: a \r\n line's width is its text's
        if m.start() > ls and re.match(r"[A-Za-z0-9+/=]", text[m.start() - 1]) or width < 40:
            continue
        _b64_wrapped(text, text.find("\n", m.end()), width, done, out)
    return out


def _b64_wrapped(text: str, at: int, width: int, done: dict[int, str], out: dict[int, str]) -> None:
    """Into out, the lines after the newline at `at` that go on a base64 run `width` wide: each all base64, up to
    the first shorter line or one ending in `=`."""
    while 0 <= at < len(text) - 1:
        at += 1
        e = text.find("\n", at)
        e = len(text) if e < 0 else e
        line = done.get(at, text[at:e])
        b = _B64_LINE.fullmatch(line)
        if b is None or len(b.group("b")) > width:
            break
        out[at] = line[:b.start("b")] + REDACTED + line[b.end("b"):]
        if len(b.group("b")) < width or b.group("b").endswith("="):
            break
        at = e


# A private key's DER in base64 with no PEM armour (a constant `RSA_KEY = "MIIEowIBAAKCAQEA…"`, a key file's body
# pasted alone): its first bytes are a SEQUENCE holding an INTEGER version 0 or 1, then a PKCS#1 key's modulus (an
# INTEGER), a PKCS#8 key's algorithm (a SEQUENCE holding an OID) or a SEC1 EC key's private value (an OCTET
# STRING). _DER_KEY_HEAD is what those bytes are in base64 at each length's form (30 82 LL LL, 30 81 LL, 30 LL);
# _der_private_key decodes the start to be sure. A certificate, a public key (SubjectPublicKeyInfo: a SEQUENCE of
# SEQUENCEs; PKCS#1's: a long INTEGER first), a signature or a PKCS#12 file (version 3) is none of them. (The `M`
# before its lookbehind lets the whole-text search skip to each `M`: 35 times faster on Python files.)
_DER_KEY_HEAD = re.compile(r"M(?<![A-Za-z0-9+/]M)(?:I[IJKL][A-Za-z0-9+/]{2}[AQgw]IBA[ADQT]|I[EFGH][A-Za-z0-9+/]AgE[AB]"
                           r"|[A-H][AEIMQUYcgkosw048]CAQ[AE][CwE])[A-Za-z0-9+/]{48,}={0,2}(?![A-Za-z0-9+/=])")


def _der_private_key(run: str, wrapped: bool) -> bool:
    """Is run (a _DER_KEY_HEAD match) a private key's DER: its structure's start, and its length the SEQUENCE's own
    (or less where the run is the first line of a key wrapped over lines)? A key's header glued to other base64
    (`MDECAQEEID5G…JustSomeUnrelatedRandomBase64Data`) or cut short on one line is not one."""
    b = base64.b64decode(run[:32])
    if b[1] < 0x80:
        i, total = 2, 2 + b[1]
    elif b[1] in (0x81, 0x82):
        i = 2 + b[1] - 0x80
        total = i + (b[2] if b[1] == 0x81 else b[2] << 8 | b[3])
    else:
        return False
    size = len(run.rstrip("=")) * 3 // 4
    if not (total - 2 <= size <= total + 2 or wrapped and size < total):
        return False
    if b[i] != 0x02 or b[i + 1] != 0x01 or b[i + 2] not in (0, 1):
        return False
    version, tag, size = b[i + 2], b[i + 3], b[i + 4]
    if tag == 0x02:  # PKCS#1 RSA (or OpenSSL's DSA): a modulus of 64 bytes or more
        return version == 0 and (size in (0x81, 0x82) or 0x40 <= size < 0x80)
    if tag == 0x30:  # PKCS#8: an AlgorithmIdentifier, its OID first
        return size < 0x80 and b[i + 5] == 0x06
    return tag == 0x04 and version == 1 and 16 <= size <= 72  # SEC1: the private scalar


def _der_key_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the lines holding a private key's DER in base64 (_DER_KEY_HEAD), and the lines
    that go on a run that ends its line."""
    out: dict[int, str] = {}
    for m in _DER_KEY_HEAD.finditer(text):
        e = text.find("\n", m.end())
        wrapped = e >= 0 and not text[m.end():e].strip(" \t\r") and _B64_LINE.match(text, e + 1) is not None
        if not _der_private_key(m.group(0), wrapped):
            continue
        ls = text.rfind("\n", 0, m.start()) + 1
        line = out.get(ls, done.get(ls, text[ls:len(text) if e < 0 else e]))
        out[ls] = line.replace(m.group(0), REDACTED, 1)
        if wrapped:
            _b64_wrapped(text, e, len(m.group(0)), done, out)
    return out


# A .NET RSA key in XML (`<RSAKeyValue><Modulus>…</Modulus><Exponent>AQAB</Exponent><P>…</P>…<D>…</D>`, what
# RSA.ToXmlString(true) writes): its private parameters, each element's text; the modulus and exponent are public.
# (DSA's `<DSAKeyValue>` has one private element, `<X>`.)
_XML_KEY_SPAN = re.compile(r"<(?P<kind>RSA|DSA)KeyValue>(?P<body>(?:(?!</?(?:RSA|DSA)KeyValue>)[\s\S]){0,20000})")
_XML_KEY_PART = re.compile(r"<(?P<tag>P|Q|DP|DQ|InverseQ|D|X)>[ \t]*(?P<v>[A-Za-z0-9+/=.]+?)[ \t]*</(?P=tag)>")


def _xml_key_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the lines holding an `<RSAKeyValue>`'s or `<DSAKeyValue>`'s private
    parameters (_XML_KEY_PART, within _XML_KEY_SPAN), over however many lines the element runs."""
    out: dict[int, str] = {}
    for span in _XML_KEY_SPAN.finditer(text):
        for m in _XML_KEY_PART.finditer(text, span.start("body"), span.end("body")):
            if (m.group("tag") == "X") != (span.group("kind") == "DSA") or m.group("v") == REDACTED:
                continue
            ls = text.rfind("\n", 0, m.start()) + 1
            e = text.find("\n", m.start())
            line = out.get(ls, done.get(ls, text[ls:len(text) if e < 0 else e]))
            out[ls] = line.replace(m.group(0), f"<{m.group('tag')}>{REDACTED}</{m.group('tag')}>", 1)
    return out


# A document serialized into a string literal: a JSON pair whose quotes are escaped (`"{\\"auths\\":{…{\\"auth\\":
# \\"…\\"}}}"`, once or more: `\\\\\\"`), or a YAML / env line after an escaped line break (`"id: …\\nsecret:
# …\\n"`). Each pair is judged as its unescaped one-line form is (`"auth": "…"`, `secret: …`, `_redact_line` of that
# probe), so a placeholder, a reference, a name with no secret's word all stay as they do unescaped.
_ESCAPED_JSON_PAIR = re.compile(r'(?<!\\)\\+"(?P<name>[A-Za-z_][\w.-]{0,63})\\+"[ \t]*:[ \t]*\\+"(?P<value>[^"\\\n]{1,500})\\+"')
_ESCAPED_NL_PAIR = re.compile(r"\\n[ \t]*(?P<name>[A-Za-z_][\w.-]{0,63})[ \t]*(?P<op>[:=])[ \t]*"
                              r"(?P<value>[^\s\\\"'][^\s\\\"']{0,499})")


def _escaped_pair_changes(text: str, done: dict[int, str], starts: set[int]) -> dict[int, str]:
    """{line start: redacted line} for the pairs of _ESCAPED_JSON_PAIR and _ESCAPED_NL_PAIR whose unescaped form
    `_redact_line` redacts, read on the lines the whole-text scans flag (`starts`: a secret's name is a hint)."""
    spans: dict[int, list[tuple[int, int]]] = {}
    for ls in starts:
        if ls in done:
            continue
        le = text.find("\n", ls)
        line = text[ls:len(text) if le < 0 else le]
        found = []
        if '\\"' in line:
            found += [(m, f'"{m.group("name")}": "{m.group("value")}"') for m in _ESCAPED_JSON_PAIR.finditer(line)]
        if "\\n" in line:
            # (the line as written after the escape, blanks kept: `name = value` is judged as such, not `name=value`)
            found += [(m, line[m.start("name"):m.end("value")]) for m in _ESCAPED_NL_PAIR.finditer(line)]
        for m, probe in found:
            if REDACTED not in m.group("value") and _redact_line(probe) != probe:
                spans.setdefault(ls, []).append((m.start("value"), m.end("value")))
    out: dict[int, str] = {}
    for ls, cuts in spans.items():
        le = text.find("\n", ls)
        line = text[ls:len(text) if le < 0 else le]
        stop = len(line) + 1
        for a, b in sorted(set(cuts), reverse=True):
            if b <= stop:  # (two patterns' overlapping spans: the later one only)
                line, stop = line[:a] + REDACTED + line[b:], a
        out[ls] = line
    return out


# A Kubernetes container's env entry whose value is on the line after its name (`- name: DB_PASSWORD` then
# `value: "…"`, the value's line indented under the item): the name is a secret's (_name_tier 2), the value judged as
# a Secret's data (_k8s_value). `valueFrom:` is no value; `- name: USER` holds none. The same for a list of `- key:` /
# `value:` items (whispers' `- key: pro_password` then `value: …`; a toleration's `- key: dedicated` is no secret's).
_K8S_ENV_PAIR = re.compile(r"name:[ \t]*(?P<nq>[\"']?)(?P<name>[A-Za-z_][\w.-]*)(?P=nq)[ \t]*\r?\n(?P<head>(?P<ind>[ \t]+)"
                           r"value:[ \t]+)(?P<value>[^\s#|>](?:[^\n]*[^ \t\r\n])?)[ \t]*\r?$", re.M)
_KEY_VALUE_PAIR = re.compile(_K8S_ENV_PAIR.pattern.replace("name:", "key:", 1), re.M)  # its own literal start: fast
_K8S_ITEM = re.compile(r"[ \t]*-[ \t]+")


def _k8s_env_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the value lines of secret-named env entries (_K8S_ENV_PAIR, _KEY_VALUE_PAIR)."""
    out: dict[int, str] = {}
    pairs = (_K8S_ENV_PAIR, _KEY_VALUE_PAIR) if "key:" in text else (_K8S_ENV_PAIR,)
    for m in (m for pattern in pairs for m in pattern.finditer(text)):
        ls = text.rfind("\n", 0, m.start()) + 1
        item = _K8S_ITEM.fullmatch(text, ls, m.start())
        if item is None or len(m.group("ind")) <= item.end() - ls - 1 or not _secret_name(m.group("name"))[0]:
            continue
        if not _k8s_value(m.group("value")):
            continue
        vs = m.start("head")
        if vs in done:
            continue
        out[vs] = m.group("head") + REDACTED + text[m.end("value"):m.end()].rstrip("\n")
    return out


# A secret's name ending its line with `:` or `=`, its quoted value alone on the next line (a long value wrapped:
# `SecretKey: ` then `'NzFE…=',`): judged as a weak name's value is, only one that looks generated.
# (found from the line break: a scan from each name's letters costs a pass over every identifier of the text)
_NEXT_LINE_VALUE = re.compile(r"[:=][ \t]*\r?\n(?P<head>[ \t]*(?P<q>[\"']))"
                              r"(?P<value>[^\"'\\\s]{12,400})(?P=q)(?P<rest>[ \t]*[,;]?[ \t]*)(?=\r?\n|$)")
_NAME_AT_END = re.compile(r"(?P<name>[A-Za-z_$][\w.$-]*)[\"']?[ \t]*$")


def _next_line_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the value lines of _NEXT_LINE_VALUE."""
    out: dict[int, str] = {}
    for m in _NEXT_LINE_VALUE.finditer(text):
        ls = max(text.rfind("\n", 0, m.start()) + 1, m.start() - 200)
        head = _NAME_AT_END.search(text, ls, m.start())
        if head is None:
            continue
        name, value = head.group("name"), m.group("value")
        if not _generated_under_secret_name(name, value):
            continue
        vs = m.start("head")
        if vs not in done:
            out[vs] = m.group("head") + REDACTED + m.group("q") + m.group("rest")
    return out


# A secret's name alone on its line, the value under it as a child `value:` (a settings file's `mock-proxy-password:`
# then `  value: testpwd`, `description: ""`): judged as `name: value` is, the child more indented than the name.
# (found from each `value:`, its line and the line before read: no scan from every name)
_PARENT_VALUE_LINE = re.compile(r"(?P<head>(?P<ind>[ \t]+)value:[ \t]+)(?P<value>[^\s#|>&*!](?:[^\n]*[^ \t\r\n])?)[ \t]*\r?")
_PARENT_NAME = re.compile(r"(?P<pind>[ \t]*)(?:-[ \t]+)?[\"']?(?P<name>[A-Za-z_][\w.-]*)[\"']?:[ \t]*\r?")


def _parent_value_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the `value:` lines of _PARENT_VALUE_LINE under a secret's name."""
    out: dict[int, str] = {}
    at = text.find("value:")
    while at >= 0:
        nxt = text.find("value:", at + 6)
        ls = at  # back over the indent only: a search back to the line's start is quadratic on a minified line
        while ls > 0 and text[ls - 1] in " \t":
            ls -= 1
        if ls < at and ls > 0 and text[ls - 1] == "\n" and ls not in done:
            le = text.find("\n", at)
            le = len(text) if le < 0 else le
            m = _PARENT_VALUE_LINE.fullmatch(text, ls, le)
            p = m and _PARENT_NAME.fullmatch(text, text.rfind("\n", 0, ls - 1) + 1, ls - 1)
            if p and len(p.group("pind")) < len(m.group("ind")) and _secret_name(p.group("name"))[0]:
                value = _TRAILING_COMMENT.sub("", m.group("value"))
                comment = m.group("value")[len(value):]
                value = value.strip()
                q = value[:1] if len(value) > 1 and value[:1] in "\"'" and value[-1:] == value[:1] else ""
                bare = value[1:-1] if q else value
                if bare and REDACTED not in bare and not _NOT_A_VALUE.search(bare) and not is_benign_value(
                        bare, p.group("name")):
                    out[ls] = m.group("head") + q + REDACTED + q + comment + text[m.end("value"):le]
        at = nxt
    return out


# A Terraform variable named for a secret whose `default = "…"` is a later line of its block (`variable
# "db_password" {` then `default = "…"`): the value judged as `db_password = "…"` would be on one line, so a
# placeholder or an empty string stays, and so does any value under a name not a secret's. (found from each
# `variable "`, the block read to its closing brace; a default in a nested block is none of the variable's)
_TF_VARIABLE = re.compile(r"[ \t]*variable[ \t]+\"(?P<name>[A-Za-z_][\w-]*)\"[ \t]*\{")
_TF_DEFAULT = re.compile(r"(?:[ \t]*default[ \t]*=[ \t]*\")(?P<value>(?:\\.|[^\"\\\n])*)\"")
_TF_BLOCK_LINES = 40
_QUOTED_RUN = re.compile(r"\"(?:\\.|[^\"\\\n])*\"")


def _tf_default_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the `default` lines of _TF_VARIABLE blocks under a secret's name. A block is
    read up to the next `variable "` at a line's start (a variable holds none: that one begins a block of its own),
    so each line is read once (1 MB of `variable "db_password" {` lines: 3.8 s when each block read 40 lines)."""
    out: dict[int, str] = {}
    heads = []  # the line starts of the `variable "NAME" {` lines, in order
    at = text.find('variable "')
    while at >= 0:
        ls = at  # back over the indent only, as _parent_value_changes: no search back over a long line
        while ls > 0 and text[ls - 1] in " \t":
            ls -= 1
        m = _TF_VARIABLE.match(text, ls) if ls == 0 or text[ls - 1] == "\n" else None
        if m is not None:
            heads.append(m)
        at = text.find('variable "', at + 1)
    tiers: dict[str, int] = {}
    for k, m in enumerate(heads):
        name = m.group("name")
        if name not in tiers:
            tiers[name] = _name_tier(name)
        if not tiers[name]:  # no secret word in the name: no name rule would judge its value
            continue
        stop = heads[k + 1].start() if k + 1 < len(heads) else len(text) + 1
        depth, ls, col = 1, m.start(), m.end() - m.start()  # col: where the block's text starts on the line
        for _ in range(_TF_BLOCK_LINES):
            if ls >= stop:
                break
            le = text.find("\n", ls)
            le = len(text) if le < 0 else le
            line = done.get(ls, text[ls:le])
            d = _TF_DEFAULT.match(line, col) if depth == 1 else None
            if (d is not None and d.group("value") and REDACTED not in d.group("value")
                    and _redacted_as_assignment(name, d.group("value"))):
                out[ls] = line[:d.start("value")] + REDACTED + line[d.end("value"):]
            bare = _QUOTED_RUN.sub("", line[col:])
            depth += bare.count("{") - bare.count("}")
            if depth <= 0 or le >= len(text):
                break
            ls, col = le + 1, 0
    return out


# A `<key>NAME</key>` element whose value is the `<value>…</value>` element after it, on the same line or the next
# (an `<entry>` of whispers' integration.conf: `<key>pro_password</key>` then `<value>…</value>`): judged as a
# `- key: NAME` item's `value:` is (_KEY_VALUE_PAIR): the name a secret's (tier 2), the value by _k8s_value, so an
# empty value, a placeholder and `${…}` stay. (a regex of its own, `<key>` its literal start, run only on a text
# holding `</key>` and `<value>`; lower-case tags only: S3's `<Key>` names an object)
_XML_KEY_VALUE = re.compile(r"<key>[ \t]*(?P<name>[A-Za-z_][\w.-]*)[ \t]*</key>[ \t]*(?:\r?\n[ \t]*)?"
                            r"<value>(?P<value>[^<>\n]*)</value>")


# A property list's `<key>NAME</key>` then `<string>…</string>` (an app's Info.plist, a keychain export): the value
# judged as `NAME = "…"` is on one line (_redacted_as_assignment), so Apple's own keys (`CFBundleIdentifier`), a
# usage description's phrase (`NSFaceIDUsageDescription`), a build setting's `$(API_KEY)` and a placeholder stay.
# (run only on a text holding `</key>` and `<string>`)
_PLIST_KEY_STRING = re.compile(r"<key>[ \t]*(?P<name>[A-Za-z_][\w.-]*)[ \t]*</key>[ \t]*(?:\r?\n[ \t]*)?"
                               r"<string>(?P<value>[^<>\n\"\\]*)</string>")


def _xml_pair_secret(m: re.Match[str]) -> bool:
    return _secret_name(m.group("name"))[0] and _k8s_value(m.group("value"))


def _plist_pair_secret(m: re.Match[str]) -> bool:
    value = m.group("value")
    return bool(value) and REDACTED not in value and _redacted_as_assignment(m.group("name"), value)


def _xml_key_value_changes(text: str, done: dict[int, str], pattern: re.Pattern[str] = _XML_KEY_VALUE,
                           secret=_xml_pair_secret) -> dict[int, str]:
    """{line start: redacted line} for the value lines of _XML_KEY_VALUE (or _PLIST_KEY_STRING, with
    _plist_pair_secret) under a secret's name."""
    out: dict[int, str] = {}
    for m in pattern.finditer(text):
        if not secret(m):
            continue
        vs = text.rfind("\n", 0, m.start("value")) + 1
        if vs in done or vs in out:
            continue
        le = text.find("\n", m.end())
        le = len(text) if le < 0 else le
        out[vs] = text[vs:m.start("value")] + REDACTED + text[m.end("value"):le]
    return out


# A list of values under a secret's name, one item a line: YAML's `passwords:` then `- "…"` items, JSON's
# `"passwords": [` then `"…",` items (whispers' hardcoded.yml and .json). A name whose last word is a password's
# (`passwords`, `db_pwd`; not `password_validators`) has each item judged as `password = "…"` would be on one line,
# so a placeholder, `${…}`, an identifier stay; under any other secret's name (`api_keys`, `secrets`: a compose
# file's `secrets:` lists the names of its secrets) only a value that looks generated goes. An item that is a
# mapping (`- name: regcred`) or a nested list ends the list; a list named as a word list to check passwords against
# (`default_passwords`, `commonPasswords`) stays whole. (found from a `:` or `: [` ending its line, the next line an
# item: no scan from each name)
_LIST_START = re.compile(r":[ \t]*(?:(?P<json>\[)[ \t]*\r?\n(?=[ \t]*\")|\r?\n(?=[ \t]*-[ \t]))")
_LIST_NAME = re.compile(r"(?P<ind>[ \t]*)(?:-[ \t]+)?(?P<q>[\"']?)(?P<name>[A-Za-z0-9_][\w.-]*)(?P=q)[ \t]*$")
_YAML_ITEM = re.compile(r"(?P<ind>[ \t]*)-[ \t]+(?P<value>[^\s#|>&*!{\[](?:[^\n]*[^ \t\r\n])?)[ \t]*\r?")
_JSON_ITEM = re.compile(r"[ \t]*\"(?P<value>(?:\\.|[^\"\\\n])*)\"[ \t]*,?[ \t]*\r?")
_PASSWORD_LAST = re.compile(r"(?i)(?:passw(?:or)?d|pwd|passphrase)s?$")
# A list of passwords kept to check others against, a word list, not credentials (kics' `default_passwords`:
# `password`, `admin`, `guest`, …): a name saying so.
_WORD_LIST_WORDS = frozenset("default common weak banned forbidden blocked blacklist blocklist denied known popular leaked "
                             "breached compromised dictionary".split())
_LIST_ITEMS = 50


def _list_item_value(name: str, value: str) -> bool:
    """Is a list item under a secret's name a secret (see _LIST_START)?"""
    if not value or REDACTED in value or _NOT_A_VALUE.search(value):
        return False
    if _PASSWORD_LAST.search(name):
        return '"' not in value and "\\" not in value and _redacted_as_assignment("password", value)
    return _generated_under_secret_name(name, value)


def _list_item_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the items of _LIST_START lists under a secret's name."""
    out: dict[int, str] = {}
    for m in _LIST_START.finditer(text):
        ls = max(text.rfind("\n", 0, m.start()) + 1, m.start() - 200)
        head = _LIST_NAME.fullmatch(text, ls, m.start())
        if head is None or not _secret_name(head.group("name"))[0] or _WORD_LIST_WORDS.intersection(
                w.lower() for w in _IDENT_WORDS.findall(head.group("name"))):
            continue
        name, json, ind = head.group("name"), m.group("json"), len(head.group("ind"))
        if json is None and head.group(0).lstrip().startswith("-"):
            ind += 2  # `- name:` in a list: its own items are more indented than the dash
        ls = m.end()
        for _ in range(_LIST_ITEMS):
            le = text.find("\n", ls)
            le = len(text) if le < 0 else le
            item = (_JSON_ITEM if json else _YAML_ITEM).fullmatch(text, ls, le)
            if item is None or not json and len(item.group("ind")) < ind:
                break
            raw = item.group("value")
            if json:
                value, q, rest = raw, "", ""
            else:
                value = _TRAILING_COMMENT.sub("", raw).strip()
                rest = raw[len(value):]
                q = value[:1] if len(value) > 1 and value[:1] in "\"'" and value[-1:] == value[:1] else ""
                value = value[1:-1] if q else value
                if not q and (": " in value or value.endswith(":")):
                    break  # a mapping: a list of records, not of values
            if ls not in done and _list_item_value(name, value):
                out[ls] = text[ls:item.start("value")] + q + REDACTED + q + rest + text[item.end("value"):le]
            if le >= len(text):
                break
            ls = le + 1
    return out


# A CloudFormation parameter named for a secret whose `Default` is a line of its block (`"DBPassword": {` then
# `"Default": "…"`, YAML's `DBPassword:` then `Default: …`): judged as `DBPassword = "…"` would be on one line, so
# a parameter with no secret's name (`DBUser`), an empty or placeholder default stay. (found from each `Default`
# with a capital D, CloudFormation's own spelling, in a text holding `Parameters`; the parameter is the first line
# above less indented than `Default`, 12 lines at most)
_CFN_DEFAULT = re.compile(r"(?P<ind>[ \t]*)(?P<dq>\"?)Default(?P=dq)[ \t]*:[ \t]*(?P<q>[\"']?)"
                          r"(?P<value>[^\"'\s#,{}\[\]](?:[^\"'\n#,]*[^\"' \t\r\n#,])?)(?P=q)[ \t]*,?[ \t]*\r?")
_CFN_PARAM = re.compile(r"(?P<ind>[ \t]*)(?P<q>\"?)(?P<name>[A-Za-z][A-Za-z0-9]*)(?P=q)[ \t]*:[ \t]*\{?[ \t]*\r?")
_CFN_LINES = 12


def _cfn_default_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the `Default` lines of secret-named CloudFormation parameters."""
    out: dict[int, str] = {}
    at = text.find("Default")
    while at >= 0:
        nxt = text.find("Default", at + 7)
        ls = at - (1 if at > 0 and text[at - 1] == '"' else 0)
        while ls > 0 and text[ls - 1] in " \t":
            ls -= 1
        if ls > 0 and text[ls - 1] == "\n" and ls not in done:
            le = text.find("\n", at)
            le = len(text) if le < 0 else le
            d = _CFN_DEFAULT.fullmatch(text, ls, le)
            p, ps = None, ls
            for _ in range(_CFN_LINES if d else 0):
                if ps <= 0:
                    break
                ps = text.rfind("\n", 0, ps - 1) + 1
                pe = text.find("\n", ps)
                line = text[ps:pe]
                if line.strip() and len(line) - len(line.lstrip(" \t")) < len(d.group("ind")):
                    p = _CFN_PARAM.fullmatch(line)
                    break
            if p is not None and REDACTED not in d.group("value") and _redacted_as_assignment(p.group("name"),
                                                                                               d.group("value")):
                out[ls] = text[ls:d.start("value")] + REDACTED + text[d.end("value"):le]
        at = nxt
    return out


# A credential's call whose arguments run over several lines (`new DirectoryEntry("LDAP://…",` then `"user",` then
# `"…");`, `new NetworkCredential(` then the user and the password each on a line): the call's lines read as one
# (each line break a blank, the offsets kept), judged by the line patterns that judge the call on one line
# (the DirectoryEntry and getConnection rows, _CRED_CTOR, _CONNECT_CALL), and the values they redact put back on
# their own lines. (found from the call's name with its `(` left open at the end of a line)
_SPLIT_CALL_NAMES = ("DirectoryEntry", "NetworkCredential", "PasswordAuthentication", "DeriveBytes", "getConnection",
                     "connect", "_bind", "change_user", "imap_open", "login", "logon", "PDO", "mysqli", "maxdb")
_SPLIT_CALL_OPEN = re.compile(r"[ \t]*\((?P<args>[^()\n]*)$", re.M)  # after a name: its `(` open at the line's end
_SPLIT_CALL_LINES = 8


def _call_end(text: str, at: int) -> int:
    """The offset of the `)` closing the `(` at `at`, or -1 past _SPLIT_CALL_LINES lines (quotes skipped)."""
    depth, i, n, lines = 0, at, len(text), 0
    while i < n:
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        elif c == "\n":
            lines += 1
            if lines > _SPLIT_CALL_LINES:
                return -1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" and text[j + 1:j + 2] not in ("\n", "") else 1
            i = j - 1 if j < n and text[j] == "\n" else j  # a quote left open at a line's end: the line break counts
        i += 1
    return -1


def _split_call_heads(text: str, starts) -> list[re.Match[str]]:
    """_SPLIT_CALL_OPEN after each of _SPLIT_CALL_NAMES on the lines starting at `starts` (the lines the whole-text
    scans flagged: every name is among their hints) that end in `(` or `,`."""
    heads = []
    for ls in starts:
        le = text.find("\n", ls)
        le = len(text) if le < 0 else le
        if not text[ls:le].rstrip().endswith(("(", ",")):
            continue
        for name in _SPLIT_CALL_NAMES:
            at = text.find(name, ls, le)
            while at >= 0:
                m = _SPLIT_CALL_OPEN.match(text, at + len(name), le)
                if m is not None:
                    heads.append(m)
                at = text.find(name, at + 1, le)
    return heads


def _split_call_changes(text: str, starts, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the lines of a call of _split_call_heads whose values its one-line form
    redacts."""
    out: dict[int, str] = {}
    for m in _split_call_heads(text, starts):
        end = _call_end(text, m.start("args") - 1)
        if end < 0:
            continue
        call_starts, ls = [], text.rfind("\n", 0, m.start()) + 1
        while ls <= end:
            call_starts.append(ls)
            ls = text.find("\n", ls)
            ls = len(text) + 1 if ls < 0 else ls + 1
        lines = []
        for st in call_starts:
            le = text.find("\n", st)
            lines.append(done.get(st, text[st:len(text) if le < 0 else le]))
        joined = " ".join(line.replace("\r", " ") for line in lines)
        new = _redact_line(joined)
        if new == joined:
            continue
        pieces = _redacted_spans(joined, new)
        if pieces is None:
            continue
        at, changed = 0, {}
        for st, line in zip(call_starts, lines):
            spans = [(a - at, b - at) for a, b in pieces if at <= a <= at + len(line)]
            if any(b > len(line) for _, b in spans):
                break  # a value over a line break: left as it is
            if spans:
                parts, k = [], 0
                for a, b in spans:
                    parts += [line[k:a], REDACTED]
                    k = b
                changed[st] = "".join(parts) + line[k:]
            at += len(line) + 1
        else:
            out.update(changed)
    return out


def _redacted_spans(old: str, new: str) -> list[tuple[int, int]] | None:
    """The spans of `old` that `new` holds REDACTED in place of (None when new is not old so rewritten)."""
    segments = new.split(REDACTED)
    if REDACTED in old or not old.startswith(segments[0]) or not old.endswith(segments[-1]):
        return None
    spans, at = [], len(segments[0])
    for k, seg in enumerate(segments[1:], 1):
        nxt = len(old) - len(seg) if k == len(segments) - 1 else old.find(seg, at + 1) if seg else -1
        if nxt <= at:
            return None
        spans.append((at, nxt))
        at = nxt + len(seg)
    return spans if at == len(old) else None
