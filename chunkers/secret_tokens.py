"""Secrets found by their form, whatever name holds them: provider tokens and the rule table, authorization headers,
keys given to signing and HMAC calls, shell and Dockerfile environment assignments, `.env` lines, command-line
credentials and SQL passwords.

The rule table's rows (secret_rules.py) are matched only on lines holding one of their hints: `_RULE_HOT`, a trie
of the hints, finds them on one line, `_RULE_HOT_SCANS` in a whole text. `_rule_value_kept` keeps a rule's
documented example, placeholder or stub; each match function returns the line with its secret replaced.
"""

from __future__ import annotations

import base64
import re

from .secret_names import REDACTED, _IDENT_WORDS, _NOT_A_VALUE, _NOT_SECRET_NAME
from .secret_rules import RULES, _RULES, _hint_literals
from .secret_values import (
    _DOC_SAMPLE_RE, _REFERENCE_OR_PLACEHOLDER, _TEMPLATE_PASSWORDS, _TEMPLATE_USERS, _WELL_KNOWN_DEV_VALUES, _entropy,
    _filler, _masked_after, _password_like, is_benign_value, looks_random,
)

# A help text's placeholder for the value (`--token TEXT`, `--password PASSWORD`).
_METAVAR = re.compile(r"[A-Z][A-Z_]*")

# Words that follow a flag in prose or help text, not its value.
_PROSE_AFTER_FLAG = frozenset(
    "a above an and are as be below by can else false flag flags for from given here if in instead is it "
    "must no none not null of on only option options or parameter requires see should switch the then "
    "to true value values was when will with yes "
    # (and words that go on a sentence: sealed-secrets' `"warning: ignoring --recovery-private-key because …"`)
    "because unless since without after before which that while".split())

# Tokens whose form alone says what they are (case-sensitive). A placeholder
# (`ghp_xxxx…`, `sk_live_****`) is kept.
_TOKEN = re.compile(
    # (a redaction glued before or after is no boundary: it stands for a secret's characters, and a token glued to
    # them was no token before they were redacted: `AKIA…00001sk-proj-…` is kept whole on the first pass and the second;
    # each form's end below, `AIza…` glued to a word's `github_pat_…` as well as AKIA's)
    r"(?<!\[REDACTED\])(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))(?:"  # a YAML block flattened to one line: `\nAKIA…`
    # (an AWS key id: an access key's, a temporary one's; an STS service bearer token's and a context-specific
    # credential's in base32, as AWS writes them)
    r"(?:(?:AKIA|ASIA)[A-Z0-9]{16}|(?:ABIA|ACCA)[A-Z2-7]{16})(?![A-Za-z0-9]|\[REDACTED\])"
    r"|gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9]|\[REDACTED\])"
    r"|github_pat_[A-Za-z0-9_]{22,255}(?![A-Za-z0-9_]|\[REDACTED\])"
    r"|xox[abeoprs]-(?:(?:\d-)?\d{8,14}-(?>[A-Za-z0-9-]{8,})|\d-[A-Za-z0-9]{40,})(?![A-Za-z0-9]|\[REDACTED\])"
    r"|xox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}(?![A-Za-z0-9-]|\[REDACTED\])"
    # a user's or a bot's token with short numeric parts (`xoxp-523423-234243-234233-e039d0…`)
    r"|xox[abeoprs]-(?:\d{4,14}-){2,3}(?=[a-z0-9]*[0-9])(?=[a-z0-9]*[a-z])[a-z0-9]{12,}(?![A-Za-z0-9-]|\[REDACTED\])"
    r"|[rs]k_(?:live|test)_[A-Za-z0-9]{12,}(?![A-Za-z0-9]|\[REDACTED\])"
    r"|AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-]|\[REDACTED\])"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}(?![A-Za-z0-9_-]|\[REDACTED\])"
    # a fine-grained GitHub token glued to a word (`ourgithub_pat_…`): its full form only (22, `_`, 59)
    r")|(?<=[A-Za-z0-9])(?<!\[REDACTED\])github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?![A-Za-z0-9_]|\[REDACTED\])"
)
# What a text holding a _TOKEN or an auth header contains: may_hold_secret's test of a
# text with no `=`, `:`, `-` or quote (`_redact_line` tests its line by substrings).
_FORM_HINT = re.compile(
    r"AKIA|ASIA|ABIA|ACCA|AIza|eyJ|gh[pousr]_|github_pat_|xox[abeoprs]-|[rs]k_(?:live|test)_|"
    r"AuthenticationHeaderValue|[Aa]uthorization|AUTHORIZATION|[Bb]earer|BEARER")
_TOKEN_PLACEHOLDER = re.compile(r"(?i)x{6}|\*{4}|0{10}|your|example_|_here|here$")
# An HTTP Authorization header's credentials (curl -H, a headers dict, C#'s AuthenticationHeaderValue).
_AUTH_HEADER = re.compile(
    r"(?i)(?:\b(?:proxy-)?authorization[\"'`]?[ \t]*[:=,][ \t]*[\"'`]?[ \t]*"
    # a scheme it knows, or another word or none before a value with a digit (`Api-Token 22cb…`, `5eb4…`)
    r"(?:(?P<scheme>bearer|basic|token|bot|digest)[ \t]+|(?:[A-Za-z][\w-]*[ \t]+)?(?=[A-Za-z0-9._~+/=@-]*[0-9]))"
    r"|\b(?-i:AuthenticationHeaderValue)\([ \t]*\"(?:bearer|basic)\"[ \t]*,[ \t]*@?\")"
    r"(?P<value>[A-Za-z0-9._~+/=@-]{8,})"
)
# An Authorization header's value as a literal under any name or none (`bearer = "Bearer 2lkj…"`, `headers["X"] =
# "Bearer …"`, also written `Bearer: …`): the scheme, then a token to the closing quote. A token has a digit and a
# letter and 16 characters or more (`"Bearer " + token`, `"Bearer {token}"`, `"Bearer YOUR_TOKEN"` stay).
_BEARER_LITERAL = re.compile(r"(?P<q>[\"'`])(?i:bearer):?[ \t]+(?P<value>[A-Za-z0-9._~+/=-]{16,200})(?P=q)")
# A Basic or Bearer scheme's credentials with no header's name before them and no quote around them (a log line, a
# test's string, prose: `Basic dXNlcjpwYXNz…`, `Bearer  dXNl…`): a Basic value is base64 of `user:password`, a Bearer
# value looks random (_auth_bare); `Basic authentication`, `Bearer tokens` and `Bearer ${TOKEN}` stay.
_AUTH_BARE = re.compile(r"(?<![\w-])(?P<scheme>(?i:basic|bearer))[ \t]+(?P<value>[A-Za-z0-9._~+/-]{16,200}={0,2})"
                        r"(?![\w.~+/=-])")
# A Basic scheme's credentials in plain text, not base64, as a literal (`` `Basic user:pass` ``): the password after
# the user's name and a colon, as a URL's (`Basic ${user}:${pass}`, `Basic user:xxxxxxxx` stay).
_BASIC_PLAIN = re.compile(r"(?P<q>[\"'`])(?i:basic)[ \t]+[A-Za-z0-9._@+-]{1,64}:(?P<value>[^\s\"'`:]{3,200})(?P=q)")
# An HMAC's key given by position to Node's createHmac (`createHmac('sha256', 'k3y…')`): the literal after the
# algorithm's name.
_HMAC_KEY = re.compile(r"\bcreateHmac\(\s*(?P<aq>[\"'`])[\w-]+(?P=aq)\s*,\s*"
                       r"(?P<q>[\"'`])(?P<value>[^\"'`\n]{4,200})(?P=q)")
# ... or a key given to Node's crypto as its first argument (`crypto.createSecretKey('…', 'utf-8')`,
# `createPrivateKey('…')`), judged as the HMAC's.
_NODE_KEY = re.compile(r"\bcreate(?:Secret|Private)Key\(\s*(?P<q>[\"'`])(?P<value>[^\"'`\n]{4,200})(?P=q)")
# ... or a private key given to Node's `Sign.sign(privateKey, outputEncoding)` by position: only with an encoding's
# name as the second literal (`s.sign('…', 'hex')`), what tells Node's signer from a JWT's `sign(payload, key)`
# and from every other `.sign(` of code; or in the options object of `privateDecrypt` / `privateEncrypt`
# (`crypto.privateDecrypt({ key: '…' }, buffer)`: `key` alone is no name in code, the call makes it one).
_SIGN_KEY = re.compile(r"\.sign\(\s*(?P<q>[\"'`])(?P<value>[^\"'`\n]{4,200})(?P=q)\s*,\s*(?P<eq>[\"'`])"
                       r"(?i:base64(?:url)?|hex|latin1|binary|utf-?8|ascii|ucs-?2|utf-?16le)(?P=eq)\s*\)")
# ... or a JWT's key given by position after the payload (jsonwebtoken's `jwt.sign(payload, '…')`,
# `jwt.verify(token, '…', cb)`; PyJWT's `jwt.encode(payload, "…", algorithm=…)`, `jwt.decode(token, "…", …)`): a
# receiver named for JWTs (`jwt`, `JWT`, `myJwt`, `jsonwebtoken`), its first argument a name, a call, an object or a
# string without a comma; an algorithm's name in the key's place (`jwt.encode(payload, "HS256")`) is none.
_JWT_KEY = re.compile(r"(?i:\b[\w$]*(?:jwt|jsonwebtoken)[\w$]*)\.(?:sign|verify|encode|decode)\(\s*"
                      r"(?:\{[^{}\n]*\}|[\w$.]+(?:\([^()\n]*\))?|(?P<fq>[\"'`])[^\"'`\n]*(?P=fq))\s*,\s*"
                      r"(?P<q>[\"'`])(?!(?i:[HREP]S(?:256|384|512)|none|EdDSA)(?P=q))"
                      r"(?P<value>[^\"'`\n]{4,200})(?P=q)")
_PRIVATE_CRYPT_KEY = re.compile(r"\bprivate(?:De|En)crypt\(\s*\{\s*key\s*:\s*"
                                r"(?P<q>[\"'`])(?P<value>[^\"'`\n]{4,200})(?P=q)")
# A header with a secret's name given to curl (`-H "X-Api-Key: …"`, `--header "Api-Token: …"`).
_HEADER_FLAG = re.compile(
    r"(?<![\w-])(?:-H|--header)(?:[ \t]+|=)(?P<q>[\"'])[ \t]*(?P<name>[A-Za-z][\w-]*)[ \t]*:[ \t]*"
    r"(?P<value>[^\s\"'][^\s\"']*)[ \t]*(?P=q)")
# A secret-shaped variable given a value on a command line or in a Dockerfile:
# `docker run -e DB_PASSWORD=…`, `--build-arg NPM_TOKEN=…`, `helm --set db.password=…`,
# `kubectl … --from-literal=password=…`, `export API_TOKEN=…` (anywhere on a line), `ENV API_KEY=…`.
_ENV_ASSIGN = re.compile(
    r"(?P<head>(?:(?<![\w-])(?:-e|--env|--build-arg|--set(?:-string)?|--from-literal)(?:[ \t]+|=)"
    r"|(?:(?<![\w.$-])|(?<=\\n))export[ \t]+|^[ \t]*(?:ENV|ARG)[ \t]+)"
    r"\\?[\"']?(?P<name>[A-Za-z_][\w.-]*)=)"
    # a value ends at a blank, a quote, a shell operator or a backslash (an escaped
    # newline of a flattened YAML block: `…=x\nkubectl …`)
    r"(?:\\?(?P<q>[\"'])(?P<qv>[^\"'\n\\]*)\\?(?P=q)|(?P<v>[^\s\"'`;|&)\\]+))",
    re.M,
)
# (what it needs, for a long line: one of its three heads, each found from a literal first character or `^`, where the
# whole pattern tries its lookbehinds at every character of a minified line)
_ENV_FLAG_HINT = re.compile(r"-(?:e|-env|-build-arg|-set(?:-string)?|-from-literal)[ \t=]")
_ENV_EXPORT_HINT = re.compile(r"export[ \t]")
_ENV_START_HINT = re.compile(r"^[ \t]*(?:ENV|ARG)[ \t]", re.M)
# A Dockerfile's older `ENV NAME value` (no `=`): one value to the line's end, read as _ENV_ASSIGN's.
_DOCKER_ENV_SPACE = re.compile(
    r"^(?P<head>[ \t]*ENV[ \t]+(?P<name>[A-Za-z_][\w.-]*)[ \t]+)"
    r"(?:(?P<q>[\"'])(?P<qv>[^\"'\n\\]*)(?P=q)|(?P<v>[^\s\"'`;|&)\\=]+))[ \t]*\r?$"
)
# A `.env` line under an environment variable's secret name, also commented out (`# SMTP_PASS=…`,
# `REACT_APP_AUTH_PASS=…`): upper-case names only, an unquoted value of one word.
_DOTENV_LINE = re.compile(
    r"^(?P<lead>[ \t]*(?:#[ \t]*)?)(?P<name>[A-Z][A-Z0-9_]*)=(?P<value>[^\s\"'`$#{<][^\s\"'`]*)"
    r"(?P<tail>[ \t]*(?:[ \t]#.*)?)$")
# Credentials given to a command: `curl -u user:password`, PowerShell's
# `ConvertTo-SecureString "…" -AsPlainText`.
_COMMAND_CRED = re.compile(
    # each side quoted apart or together (`--user "id":"pw"`, `-u user:'pw'`), either side empty
    r"(?:(?<![\w-])(?:-u|--user|--proxy-user)[ \t]+\\?[\"']?(?P<user>[^\s:\"'$]*)[\"']?:[\"']?(?P<v>[^\s\"'$\\]*)"
    r"|(?i:\bConvertTo-SecureString)[ \t]+(?:-String[ \t]+)?(?P<q>[\"'])(?P<qv>[^\"'\n$]+)(?P=q)"
    r"(?=[ \t]+(?i:-AsPlainText)))"
)
# SQL's password clause: `CREATE USER app WITH PASSWORD 'x'`, `IDENTIFIED BY 'x'` (no `=` between).
_SQL_PASSWORD = re.compile(
    r"(?i)(?:\bidentified[ \t]+by|(?:\bwith|,)[ \t]+(?:(?:un)?encrypted[ \t]+)?password[ \t]*=?)[ \t]*N?'(?P<value>[^'\n]+)'")
# ... and a role's or a user's password where it is created or altered, in Postgres' and MySQL's and Oracle's words
# (`CREATE ROLE app LOGIN PASSWORD '…'`, `ALTER ROLE postgres PASSWORD '…'`, `IDENTIFIED WITH caching_sha2_password
# BY '…'`, Oracle's unquoted `IDENTIFIED BY Pa55w0rd`): quoted, or bare when it looks like a password (not `EXPIRE`,
# `NULL`, a `:bind` or a `%s`). A hash given `AS '*…'` or `VALUES '…'` is no password.
_SQL_ROLE_PASSWORD = re.compile(
    r"(?i)\b(?:create|alter)[ \t]+(?:role|user|login)[ \t]+[^;\n]{0,200}?"
    r"\b(?:identified(?:[ \t]+with[ \t]+['\"`]?\w+['\"`]?)?[ \t]+by|password)[ \t]*=?[ \t]*"
    r"(?:N?'(?P<value>[^'\n]+)'|(?P<bare>[^\s;'\"\\`(),]+))")


_ENV_SECRET_WORDS = frozenset("password passwd pwd secret token key apikey credential credentials creds".split())


def _env_secret_name(name: str) -> bool:
    """`DB_PASSWORD`, `db.password`, `NPM_TOKEN`, also `SMTP_PASS` and `GPG_PASSPHRASE`
    (`pass` only after `_`: the guard and hot-line scan look for `_pass`)."""
    words = {w.lower() for w in _IDENT_WORDS.findall(name)}
    if "_pass" in name.lower():
        words = words | {"password"} if words & {"pass", "passphrase"} else words
    return bool(words & _ENV_SECRET_WORDS) and not _NOT_SECRET_NAME.search(name)


# The rule table (secret_rules.RULES): its hints, lowercased, found in the lowered text (_RULE_HOT_SCANS
# for a whole text, the trie _RULE_HOT for one line); a line holding a hint runs the rules of that hint.
# A case-sensitive hint (`=SK`, secret_rules' docstring) is found in the text as it is (_CS_*).
_HINT_RULES: dict[str, list[int]] = {}
_CS_HINT_RULES: dict[str, list[int]] = {}
# hints that are regexes (`~…`): (row, the regex)
_RE_HINT_ROWS = tuple((_i, re.compile(_h[1:])) for _i, (_, _hint, _) in enumerate(RULES)
                      for _h in _hint_literals(_hint) if _h.startswith("~"))
_RE_HINT_ANY = re.compile("|".join(f"(?:{h.pattern})" for _, h in _RE_HINT_ROWS))
# the same, one entry per distinct regex (rows may share one): (the regex, its rows)
_RE_HINT_GROUPS: tuple[tuple[re.Pattern[str], tuple[int, ...]], ...] = tuple(
    (re.compile(_p), tuple(_i for _i, _h in _RE_HINT_ROWS if _h.pattern == _p))
    for _p in dict.fromkeys(_h.pattern for _, _h in _RE_HINT_ROWS))
for _i, (_, _hint, _) in enumerate(RULES):
    for _h in _hint_literals(_hint):
        if _h.startswith("~"):
            continue
        if _h.startswith("="):
            _CS_HINT_RULES.setdefault(_h[1:], []).append(_i)
        else:
            _HINT_RULES.setdefault(_h.lower(), []).append(_i)


def _closure(hint_rules: dict[str, list[int]]) -> dict[str, tuple[int, ...]]:
    """hint -> the rules of it and of every hint that is its prefix: at one position the trie finds the
    longest hint only (`sk-proj-`, not `sk-`)."""
    return {h: tuple(sorted({i for g, rows in hint_rules.items() if h.startswith(g) for i in rows}))
            for h in hint_rules}


_HINT_CLOSURE, _CS_HINT_CLOSURE = _closure(_HINT_RULES), _closure(_CS_HINT_RULES)


def _trie(words) -> str:
    """A regex matching any of words, factored by common prefix."""
    root: dict = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(root)


_RULE_HOT = re.compile(_trie(_HINT_RULES))
_CS_RULE_HOT = re.compile(_trie(_CS_HINT_RULES))
# every hint at every position (a lookahead), also where one overlaps another (`sk_` in `sk_prod_`)
_RULE_HOT_ALL = re.compile(f"(?=({_RULE_HOT.pattern}))")
_CS_RULE_HOT_ALL = re.compile(f"(?=({_CS_RULE_HOT.pattern}))")
# A documented sample value (AWS's `AKIAIOSFODNN7EXAMPLE`, `wJalr…EXAMPLEKEY`, `…SAMPLEKEY`; see _DOC_SAMPLE_RE).
_DOC_EXAMPLE = re.compile(_DOC_SAMPLE_RE)

# A token that says it is an example: ends so (`…tokenexample`, `…keyexample`) or says it (`…ThisIsAnExample…`);
# not a hash's `user@EXAMPLE.TEST` realm.
_SAYS_EXAMPLE = re.compile(r"(?i)example(?:s|key|token|secret|only)?$|this_?is_?an?_?example|not_?a_?real")


# A regex's group where a rule expects a secret (parse-server's tests' `/…\?token=([a-zA-Z0-9]+)\&id=…/`): the
# pattern that matches the token, none itself.
_REGEX_GROUP = re.compile(r"\((?:\?:)?(?:\[[^\[\]\s]+\]|\\[dwsSWD])[+*]")


def _rule_value_kept(value: str) -> bool:
    """A placeholder where a rule expects a secret: `xxxx…`, `<token>`, `$VAR`, a doc's example (`…EXAMPLEKEY`, or
    one that says so, `…tokenexample`, `…ThisIsAnExample…`)."""
    return (REDACTED in value or value[:1] in ("{", "$", "%", "<") or len(set(value)) < 5 or _filler(value)
            or ("xample" in value and _SAYS_EXAMPLE.search(value) is not None)
            or _TOKEN_PLACEHOLDER.search(value) is not None or _DOC_EXAMPLE.search(value) is not None
            or value.lower() in _PROSE_AFTER_FLAG
            or _METAVAR.fullmatch(value) is not None or _REGEX_GROUP.match(value) is not None
            or is_benign_value(value))


# A coverage badge's token in a README's image (`https://codecov.io/gh/o/r/graph/badge.svg?token=BQKzPoql9j`,
# shields.io's `/codecov/c/github/o/r?token=…`): Codecov's graph token, made to be published, no upload token.
_URL_QUERY_RULE = next(pattern for rid, _, pattern in _RULES if rid == "url_query_secret")
_BADGE_URL = re.compile(r"(?i)(?:codecov\.io/[\w./-]*badge\.svg|img\.shields\.io/codecov/[\w./-]*)$")


def _rule_sub(match: re.Match[str]) -> str:
    if match.re is _URL_QUERY_RULE and _BADGE_URL.search(match.string, max(0, match.start() - 200), match.start()):
        return match.group(0)
    groups = match.re.groupindex
    group = next((g for g in ("s", "s2") if g in groups and match.group(g) is not None), 0)
    if _rule_value_kept(match.group(group)) or _masked_after(match):
        return match.group(0)
    return _replace(match, group) if group else REDACTED


def _rules_for(line: str, low: str) -> list[int]:
    """The rows of the rule table whose hints a line (and its lowered copy) holds."""
    return sorted({i for hint in _RULE_HOT_ALL.findall(low) for i in _HINT_CLOSURE[hint]}
                  | {i for hint in _CS_RULE_HOT_ALL.findall(line) for i in _CS_HINT_CLOSURE[hint]}
                  | {i for hint, rows in _RE_HINT_GROUPS if hint.search(line) for i in rows})


def _apply_rules(line: str, low: str) -> str:
    for i in _rules_for(line, low):
        line = _RULES[i][2].sub(_rule_sub, line)
    return line


def _token(match: re.Match[str]) -> str:
    value = match.group(0)
    if _TOKEN_PLACEHOLDER.search(value) or _DOC_EXAMPLE.search(value) or _filler(value) or _masked_after(match):
        return value
    return REDACTED


_DIGEST_PARAM = re.compile(r"(?i)(?:username|realm|nonce|uri|algorithm|qop|opaque)=")


# Code after a variable named `authorization` (Spring Security's tests: `OAuth2Authorization authorization =
# TestOAuth2Authorizations.authorization(registeredClient)`): a class's name of capitalised words, a member of one, a
# call; no scheme before it.
_CLASS_WORDS = re.compile(r"(?:[A-Z]+[a-z]+[0-9]*){2,}")
_MEMBER_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def _auth_code(match: re.Match[str]) -> bool:
    value = match.group("value")
    if looks_random(value.split(".")[0]):
        return False
    return match.string[match.end():match.end() + 1] == "(" or (
        _MEMBER_PATH.fullmatch(value) is not None and _CLASS_WORDS.match(value) is not None) or (
        _CLASS_WORDS.fullmatch(value) is not None)


def _auth_header(match: re.Match[str]) -> str:
    value, scheme = match.group("value"), match.group("scheme")
    # a value already redacted after a word the first pass read as its scheme (`Authorization: Word1 -p…`): the
    # second pass reads the same, so redaction stays idempotent
    if match.group(0).endswith(REDACTED) or match.string[match.end():].lstrip(" \t").startswith(REDACTED) or (
            scheme is None and "AuthenticationHeaderValue" not in match.group(0) and (
                is_benign_value(value) or _auth_code(match))):
        return match.group(0)
    if (_METAVAR.fullmatch(value) or re.fullmatch(r"[A-Z]?[a-z]+", value) or _TOKEN_PLACEHOLDER.search(value)
            or _REFERENCE_OR_PLACEHOLDER.match(value) or value in _WELL_KNOWN_DEV_VALUES) or (
            scheme is not None and scheme.lower() == "basic" and _template_basic(value)) or (
            # a scheme's parameters by name, their values concatenated (nusoap's `'Digest username="' . $username`)
            re.fullmatch(r"[A-Za-z_]+=", value) and match.string[match.end():match.end() + 1] in "\"'") or (
            # a Digest header's user or realm, no response after it (vulhub's `Authorization: Digest username=admin`)
            scheme is not None and scheme.lower() == "digest" and _DIGEST_PARAM.match(value)) or (
            # a test's token named in words (better-auth's `Bearer test-scim-token`, APISIX's `Bearer test-key`)
            scheme is not None and scheme.lower() in ("bearer", "token") and _TOKEN_STAND_IN.fullmatch(value)) or (
            # a request signing scheme's name alone, its credential joined after it (the AWS SDK for PHP's
            # `setHeader('Authorization', "AWS4-HMAC-SHA256 " . …)`)
            scheme is None and _SIGNING_SCHEME.fullmatch(value)):
        return match.group(0)
    return _replace(match, "value")


_SIGNING_SCHEME = re.compile(r"(?:AWS4|GOOG4|OSS4|ACS3|SDK)-(?:HMAC|RSA|ECDSA)(?:-[A-Z0-9]+)+")


# Lower-case words naming a token or a key, a short part after it maybe (`rotating-token-b`, `token123`).
_TOKEN_STAND_IN = re.compile(r"(?:[a-z]+-)*(?:token|key)(?:-[a-z0-9]{1,4})*|(?:token|key)[0-9]{1,4}")


def _template_basic(value: str) -> bool:
    """A Basic scheme's base64 of a syntax's words, its password maybe none (`dXNlcjpwYXNz`, "user:pass"; `dXNlcjo=`,
    "user:"): a test's or a document's header, as `user:password@` is a URL's (_TEMPLATE_USERS, _TEMPLATE_PASSWORDS).
    Any other user with no password stays redacted: the user may be the key (`sk_test_…:`, gitleaks' `browser:`)."""
    try:
        user, sep, password = base64.b64decode(value, validate=True).decode("ascii").partition(":")
    except (ValueError, UnicodeDecodeError):
        return False
    return bool(sep) and _template_pair(user, password)


def _template_pair(user: str, password: str) -> bool:
    """A decoded Basic pair of a syntax's words, the password maybe none (_template_basic)."""
    return user.lower() in _TEMPLATE_USERS and (not password or password.lower() in _TEMPLATE_PASSWORDS)


# Passwords of a documentation's example (`curl -u user:pass`, `test:test`, `<user:password>`).
_SAMPLE_PASSWORDS = frozenset("pass password passwd pwd secret test changeme admin user username".split())


def _header_flag(match: re.Match[str]) -> str:
    name, value = match.group("name"), match.group("value")
    if ("authorization" in name.lower() or value == REDACTED or not _env_secret_name(name)
            or is_benign_value(value, name) or _TOKEN_PLACEHOLDER.search(value)):
        return match.group(0)
    return _replace(match, "value")


def _command_cred(match: re.Match[str]) -> str:
    group = "qv" if match.group("qv") is not None else "v"
    value = match.group(group)
    if group == "v" and not value:
        # `curl -u sk_test_…:` (an API key as the user, no password): the user is the secret
        user = match.group("user")
        if (len(user) >= 8 and any(c.isdigit() for c in user) and any(c.isalpha() for c in user)
                and REDACTED not in user and not is_benign_value(user)):
            return _replace(match, "user")
        return match.group(0)
    # `docker run -u 1000:1000` is a uid and a gid; `date -u +%Y-%m-%dT%H:%M:%SZ` prints UTC in a format
    # (`sqlmap -u "http://127.0.0.1:3000/login"`: a URL's scheme read as the user)
    if value == REDACTED or value.isdigit() or is_benign_value(value) or len(set(value)) < 3 or (
            value.startswith("//")) or (
            group == "v" and re.match(r"\+[\"'”“]?%", match.group("user"))):
        return match.group(0)
    if group == "v" and (value == match.group("user") or value.strip("<>[]{}()").lower() in _SAMPLE_PASSWORDS):
        return match.group(0)
    return _replace(match, group)


def _sql_password(match: re.Match[str]) -> str:
    value = match.group("value")
    if match.group(0).startswith("identified by") and not _SQL_ACCOUNT.search(match.string) and re.search(
            r"[a-z]{2,}[ \t]$", match.string[:match.start()]):
        return match.group(0)  # prose (`a dynamic library identified by 'name'`): no user, role or login on the line
    return match.group(0) if value == REDACTED or is_benign_value(value) else _replace(match, "value")


def _sql_role_password(match: re.Match[str]) -> str:
    group = "value" if match.group("value") is not None else "bare"
    value = match.group(group)
    if REDACTED in value or is_benign_value(value) or group == "bare" and (
            not _password_like(value) or value.startswith((":", "?", "@"))):
        return match.group(0)
    return _replace(match, group)


# SQL Server's procedures that set a login's, a linked server's or an application role's password: the password by
# position or by its parameter's name (`EXEC sp_addlogin 'app', 'Pa55…'`, `sp_password NULL, '…', 'sa'`,
# `sp_addlinkedsrvlogin 'SRV', 'false', NULL, 'user', '…'`, `sp_change_users_login 'Auto_Fix', 'u', NULL, '…'`,
# `@new = N'…'`): {procedure: the 1-based positions of its passwords}.
_SQL_LOGIN_PROCS = {"sp_addlogin": (2,), "sp_password": (1, 2), "sp_addapprole": (2,), "sp_setapprole": (2,),
                    "sp_approlepassword": (2,), "sp_change_users_login": (4,), "sp_addlinkedsrvlogin": (5,)}
_SQL_LOGIN_PARAMS = frozenset("@passwd @password @old @new @newpwd @rmtpassword".split())
_SQL_LOGIN_CALL = re.compile(
    # (a call: after EXEC, or a statement's start; `see sp_password ('old', 'new')` in prose is none)
    r"(?i)(?:\bexec(?:ute)?[ \t]+(?:\w+\.\.?)*|^[ \t]*|;[ \t]*)"
    r"(?P<proc>sp_(?:addlogin|password|addapprole|setapprole|approlepassword|change_users_login|addlinkedsrvlogin))"
    r"\b[ \t(]+(?P<args>(?:(?!\b(?:exec|execute|go)\b)[^;\n])*)")  # (to the next statement)
_SQL_ARG = re.compile(r"[ \t]*(?:(?P<name>@\w+)[ \t]*=[ \t]*)?(?:N?'(?P<value>(?:''|[^'\n])*+)'|[^,'\n]*+)[ \t]*(?:,|$|\)|(?=[ \t]))")


def _sql_login_call(match: re.Match[str]) -> str:
    positions, text = _SQL_LOGIN_PROCS[match.group("proc").lower()], match.group(0)
    args, base, out, done, pos, k = match.group("args"), match.start("args") - match.start(), [], 0, 0, 0
    # one argument after another from where the last ended (a search from every character of a run no argument
    # ends, `sp_addlogin aaa…'`, was quadratic)
    while pos < len(args) and (arg := _SQL_ARG.match(args, pos)) is not None and arg.end() > pos:
        pos, k = arg.end(), k + 1
        value, name = arg.group("value"), arg.group("name")
        if value is None or not (name.lower() in _SQL_LOGIN_PARAMS if name else k in positions):
            continue
        if value and REDACTED not in value and not is_benign_value(value):
            out += [text[done:base + arg.start("value")], REDACTED]
            done = base + arg.end("value")
    return "".join(out) + text[done:] if out else text


# The words of SQL's statements that give an account a password (`CREATE USER … IDENTIFIED BY '…'`, `GRANT …`)
_SQL_ACCOUNT = re.compile(r"(?i)\b(?:user|role|login|grant|create|alter)\b")


def _in_create_secret(match: re.Match[str]) -> bool:
    """Is a `--from-literal` part of `kubectl create secret` (on its line, also
    a line of a flattened YAML block, which ends at a `\\n` escape)?"""
    text, at = match.string, match.start()
    start = max(text.rfind("\n", 0, at), text.rfind("\\n", 0, at))
    return "create secret" in text[start + 1:at].lower()


def _dotenv_line(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if REDACTED in value or not _env_secret_name(name) or (
            _NOT_A_VALUE.search(value) and not _punctuated_key(value)) or is_benign_value(value, name):
        return match.group(0)
    return _replace(match, "value")


# A generated key of letters, digits and punctuation (Django's `SECRET_KEY=r&lvy…*k+qq)=x-!=0yd5…`): long, five or
# more kinds of punctuation, dense, and no call or subscript of a name (`get_key()`; a key's `k(p4)` is one letter),
# template or quote in it, so a bracket in it is no code's.
_CODE_SHAPE = re.compile(r"[A-Za-z_]\w{2,}[(\[]|\$[({]|\{\{|[\"'`]")


def _punctuated_key(value: str) -> bool:
    return (len(value) >= 32 and _entropy(value) >= 4.5 and not _CODE_SHAPE.search(value)
            and len(set(value) - set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")) >= 5)


def _env_value_kept(value: str, name: str) -> bool:
    """An environment assignment's value that is no secret: none, a metavariable, a benign value, or a template's
    opening, its hole past the blank (`ENV DRONE_TOKEN={{ DRONE_TOKEN }}`), or a placeholder's `<` (`ENV API_TOKEN
    <your-token>`, `-e TOKEN=<token>`)."""
    return not value or value == REDACTED or _METAVAR.fullmatch(value) is not None or is_benign_value(
        value, name) or value.startswith(("{{", "{%", "${", "$(", "<"))


def _env_assign(match: re.Match[str]) -> str:
    group = "qv" if match.group("qv") is not None else "v"
    value = match.group(group)
    name = match.group("name")
    if _env_value_kept(value, name):
        return match.group(0)
    if _env_secret_name(name) or ("from-literal" in match.group("head") and _in_create_secret(match)):
        return _replace(match, group)
    return match.group(0)


def _replace(match: re.Match[str], group: str) -> str:
    """The match with one group's text replaced by REDACTED."""
    if group == 0:
        return REDACTED
    start, end = match.span(group)
    whole = match.start()
    return match.group(0)[:start - whole] + REDACTED + match.group(0)[end - whole:]
