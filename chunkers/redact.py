"""Secret redaction: runs on every chunk before anything else sees it.

Two strengths, because the same pass sees config files and source code:

- `redact_value(key_path, value)`, for the config and OpenAPI chunkers' parsed values: under a
  secret's name (`password`, `ApiKey`, `key`) a value becomes "[REDACTED]" whatever it looks like;
  under a name with "key" or "token" as one of its words (`sort_key`) only when it looks generated
  (`looks_random`); under any name when it plainly is one; never under `keywords`, `secretName`.
- `redact_text(text)`, the free-text pass the registry runs over every chunk of every format,
  touches only *literal* values: a quoted string assigned to a secret-shaped name, a config-shaped
  line (`DB_PASSWORD=…`), connection-string credentials, user:password in URLs, XML key/value
  pairs, a secret command-line flag's argument, an .npmrc credential. In code the bare word "key"
  is far more often a dictionary key than a secret, so free text needs a compound name
  (`api_key`, `SigningKey`): `var key = dict[key];` is left alone (a JSON entry `"key": "…"` only when its value is
  plainly generated, as under any name in a parsed config).

Secrets are also found by their *form*, whatever name holds them: private-key blocks, provider
tokens (AWS, GitHub, Slack, Stripe, Google, JWTs, `Authorization:` values), secret-shaped shell
and Dockerfile assignments, Kubernetes Secret data, and the rule table in secret_rules.py.
Every replacement keeps the line structure (a line is rewritten, never joined or dropped), so
chunk coordinates stay exact. A phrase, an identifier naming a key, a placeholder or a reference
(`${DB_PASSWORD}`, `process.env.KEY`) is no secret. Why rules by name and form: docs/decisions.md.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import functools
import math
import re
import zlib
from bisect import bisect_left, bisect_right
from dataclasses import replace
from itertools import accumulate
from operator import attrgetter
from typing import Any

from .model import ChunkPiece, ChunkSymbol
from .secret_rules import _B64_PEM_PREFIXES, RULES
from .text import line_table, split_lines

REDACTED = "[REDACTED]"
# The key pattern of the spec, for parsed config keys (any "key" counts).
SECRET_KEY = re.compile(r"(?i)(secret|password|passwd|pwd|key|token|connectionstring)")
# Ancestors under which every value is secret (`ConnectionStrings:Default`).
SECRET_SECTION = re.compile(r"(?i)(secret|password|connectionstring|credential)")
# Names that mark a secret in free text (source code, prose, code blocks).
# The secret word itself (`Password`, `ApiKey`, `account-key`), without a name's prefix or suffix.
_SECRET_CORE = (
    # (misspelt or cut short: `passwrd`; `pword` only as a word of its own: `stopwords`, `opword` are none)
    r"(?:secret|passw(?:or|r)?d|(?<![A-Za-z])pword(?![a-z])|passphrase|pwd|token|connection[_-]?string|credentials?|creds|"
    r"(?:api|access|private|secret|signing|encryption|client|account|subscription|master|auth|"
    r"shared[_-]?access|storage|license|app|preshared)[_-]?key)"
)
# (a name may begin with a digit: a YAML or JSON key, `01_hardcoded_password:`, `2fa_secret:`)
_CODE_SECRET_NAME = r"(?:[A-Za-z0-9_$@][\w.$@-]*?)?" + _SECRET_CORE + r"[\w.$@-]*"
# The same name where what follows it can never begin with a name character (an operator, a quote, a blank, a
# bracket, or a lookahead refusing [\w.$@-]): such a name always runs to the end of its run of name characters, so it
# is that whole run, checked once for a first character and a secret word, and never given back (possessive). The
# lazy prefix and greedy rest above retried the rest at every secret word of a run, giving it back character by
# character: a 27 KB run of `apassword` before ` = "…"` cost 2.7 CPU s in _INI_LINE alone (worst cases, 2026-12-04).
# Same matches, same groups, every one of its patterns; _EQUALS_CALL keeps the form above (`password.equals(`).
_SECRET_NAME = r"(?=[A-Za-z0-9_$@])(?=[\w.$@-]*?" + _SECRET_CORE + r")[\w.$@-]*+"
_SECRET_CORE_RE = re.compile("(?i)" + _SECRET_CORE)

# name = "literal" / "name": 'literal' / name := `literal` / a C# auto-property's
# initializer: `ApiKey { get; init; } = "literal"`
_ACCESSORS = r"(?:\s*\{(?:\s*(?:(?:public|private|protected|internal)\s+)?(?:get|set|init)\s*;){1,2}\s*\})?"
# (Swift's optional and implicitly unwrapped types: `let password: String! = "…"`, `String?`)
_ANNOTATION = r":\s*[A-Za-z_][\w.]*(?:\[[\w., |\[\]]*\])?[!?]?(?:\s*\|\s*[A-Za-z_][\w.]*)*\s*"
# A typed declaration's type between the name and `=`: Visual Basic's `Dim password As String = "…"` (`Const PWD As
# String`, `Public Shared ReadOnly Secret As String`), Go's `var password string = "…"` (the type `string` alone), Rust's
# `const API_KEY: &str = "…"` (`&'static str`), C's array `static const char API_KEY[] = "…"` (`[32]`). (The name is
# possessive: `As` and `string` follow a blank or a sign, never the name's own letters.)
_TYPED_OP = r"As\s+[A-Za-z_][\w.]*\??\s*=(?!=)|string\s*=(?!=)|:\s*&(?:'[A-Za-z_]\w*\s+)?str\s*=(?!=)|\[\d*\]\s*=(?!=)"
# What joins a secret's name to its literal (_QUOTED_ASSIGN, and _QUOTED_NEED, its cheap gate): `=`, `:`, a
# comparison, `||=` and the like, a type annotation, a typed declaration's type.
_ASSIGN_OP = r"(?:[!=]==?|<=>|\|\|=|\?\?=|:{1,3}=|\?=|=>|=|:|" + _ANNOTATION + r"=(?!=)|" + _TYPED_OP + r")"
# A literal index after a name (`["shopuser"]`)
_LITERAL_INDEX = r"(?:\[[\"'][\w.@-]{1,40}[\"']\])?"
_QUOTED_ASSIGN = re.compile(
    # a subscript's closing `]` (`environ["API_KEY"] = …`, Ruby's `ENV["TOKEN"] ||= …`), a hash's `=>`
    # (a sign glued to the name's end: `let apikey€ = "…"`, a test's name with a character beyond ASCII)
    # (a secret-named table's entry by a literal index: InsecureShop's `userCreds["shopuser"] = "…"`)
    r"(?i)(?P<name>[\"']?\b(?:" + _SECRET_NAME + r")(?:[^\x00-\x7f\w\s])?" + _LITERAL_INDEX + r"[\"']?\]?"
    + _ACCESSORS + ")"
    # a comparison too (`if (secret == "…")`, `!==`): the literal is the secret the code expects
    # a type annotation between the name and `=` (`secret: str = "…"`, `const token: string = '…'`)
    r"(?P<op>\s*" + _ASSIGN_OP + r"\s*)"
    r"(?P<pre>@|[bBrRuU]{1,2})?"
    r"(?P<q>[\"'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"
)
# A unified diff's line prefix before a line's text (`+` added, `-` removed; a context line's blank is a blank):
# `+password=…`, `-github_token: …`, `+    secret = …` in a patch, a pre-commit hook's or a review's view.
_DIFF_MARK = r"(?:[+-](?=[ \t]*[A-Za-z_$@]))?"
# A config-shaped line: `KEY=value` (no space before '=') or `key: value`.
_CONFIG_LINE = re.compile(
    r"(?im)^(?P<lead>" + _DIFF_MARK + r"[ \t]*(?:export[ \t]+|-[ \t]+)?)"
    r"(?P<name>(?:" + _SECRET_NAME + r"))"
    r"(?P<op>=|:[ \t]+)(?P<value>[^\s\"'`(\[{](?:[^\n]*[^ \t\n])?)[ \t]*$"
)
# What every _CONFIG_LINE match starts with (its name is a run of [\w.$@-]):
# a cheap anchored test before the costly pattern.
_CONFIG_START = re.compile(r"(?i)" + _DIFF_MARK + r"[ \t]*(?:export[ \t]+|-[ \t]+)?[\w.$@-]+(?:=|:[ \t])")
# `auth` or `oauth` alone as a name, or after a prefix and `_` or `.` (`$auth`, `$oauth`, `d_auth`, `arg?.auth`): a
# weak name (an auth scheme's name, a flag): its literal is a secret only when it looks generated (_WEAK_QUOTED's).
_AUTH_NAME = r"(?:\$?(?:[A-Za-z_$][\w$]*?[_.])?(?:auth|AUTH|Auth|oauth|OAUTH|OAuth|oAuth)\b)"
# A secret-named value given to a call: a setter or a define (`os.putenv("SECRET", "…")`,
# `System.setProperty("db.password", "…")`, PHP's `define('DB_PASSWORD', '…')`, `os.Setenv(…)`),
# also a lookup's literal default (`os.environ.get("API_KEY", "…")`), given by keyword too (django-environ's and
# python-decouple's `env("SECRET_KEY", default="…")`, `config("API_TOKEN", default="…")`).
_CALL_PAIR = re.compile(
    # (a PHP namespace before the name: `define("App\Config\Token", …)`; `auth` alone: `define("AUTH", …)`, judged by
    # looks_random as under _WEAK_QUOTED)
    r"(?i)\(\s*(?P<nq>[\"'])(?P<name>(?:[\w.]+\\{1,2})*(?:" + _SECRET_NAME + r"|o?auth))(?P=nq)\s*,\s*"
    r"(?:default[ \t]*=[ \t]*)?"
    r"(?P<pre>@|[bBrRuU]{1,2})?"
    r"(?P<q>[\"'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"
)
# ... or a quoted secret's name in a call's brackets, then assigned a literal: VB's indexer (`Session("Password")
# = "…"`, `Application("ApiKey") = "…"`), the same pair as `x.config('APIKEY', '…')` (`obj('api_key') = '…'`);
# only `=`: a comparison's `get("token") == "…"` or a ternary's `f("token") : "…"` is none.
_CALL_KEY_ASSIGN = re.compile(
    r"(?i)\(\s*(?P<nq>[\"'])(?P<name>" + _SECRET_NAME + r")(?P=nq)\s*\)\s*=(?![=>])\s*"
    r"(?P<pre>@|[bBrRuU]{1,2})?(?P<q>[\"'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"
)
# What a _CALL_KEY_ASSIGN line holds: a quote, the bracket's close, `=` (no name tried at every `(` of a line).
_CALL_KEY_HINT = re.compile(r"[\"']\s*\)\s*=(?![=>])")
# ... or two strings in a list, a secret's name and a generated value (`["password", "…"]`, talisman's `"pwd"
# ,"…"`): only a value that looks generated (a list of names or words is no pair: `["password", "token"]`).
_LIST_PAIR = re.compile(
    r"(?i)(?:^|[\[{,])\s*(?P<nq>[\"'])(?P<name>" + _SECRET_NAME + r")(?P=nq)\s*,\s*"
    r"(?P<q>[\"'])(?P<value>[^\"'\\\s]{8,})(?P=q)\s*(?=[\]},]|$)"
)
# ... or named by a constant in capitals (`env.put(Context.SECURITY_CREDENTIALS, "…")`, `put(DB_PASSWORD, "…")`)
_CONST_CALL_PAIR = re.compile(
    r"\(\s*(?P<name>(?:[A-Za-z_]\w*\.)*[A-Z0-9_]*(?:SECRET|PASSW(?:OR)?D|PASSPHRASE|PWD|TOKEN|CREDENTIALS?|CREDS|"
    r"(?:API|ACCESS|PRIVATE|SIGNING|ENCRYPTION|CLIENT|ACCOUNT|AUTH)_?KEY)[A-Z0-9_]*)(?![\w.(])\s*,\s*"
    r"(?P<pre>@|[bBrRuU]{1,2})?(?P<q>[\"'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"
)
# A quoted `NAME=value` (`putenv("API_KEY=…")`, a compose file's `- "DB_PASSWORD=…"`).
_QUOTED_ENV = re.compile(
    r"(?i)(?P<q>[\"'])(?P<name>" + _SECRET_NAME + r")=(?P<value>[^\s\"'$%{<(\[;&][^\s\"'()\[\]{}|\\^*?]*)(?P=q)"
)
# ... a password's word glued to what comes before it in a quoted query or pairs string (`"foo=1password=…"`,
# `"userpassword=…"`, `"user/password=…"`), or `passphrase=`: the value holds letters and digits (a word alone, a
# flag's `1`, is no secret here), up to the next `;`, `&`, `,` or the quote
_GLUED_PAIR = re.compile(
    r"(?i)(?P<q>[\"'])(?P<pre>[^\s\"'=]*=?[^\s\"'=;&]*?)(?P<name>passw(?:or)?d|passphrase|pwd)="
    r"(?P<value>[^\s\"'$%{<(\[;&,][^\s\"'()\[\]{}|\\^*?;&,]*)(?=[;&,]|(?P=q))"
)
# (what it needs: the name, `=` and the value's first character; the whole pattern scans from every quote)
_GLUED_HINT = re.compile(r"(?i)(?:passw(?:or)?d|passphrase|pwd)=[^\s\"'$%{<(\[;&,]")
# A credential's constructor with the password by position: .NET's `new NetworkCredential(user, "…"[, domain])`,
# `new PasswordDeriveBytes("…", salt…)`, `new Rfc2898DeriveBytes("…", …)`, Java's `new PasswordAuthentication(user,
# "…".toCharArray())`.
_CRED_CTOR = re.compile(
    r"\b(?:new|New|NEW)\s+(?:[\w.]+\.)?(?:(?:NetworkCredential|PasswordAuthentication)\(\s*"
    r"(?:\"[^\"\n]*\"|[\w.]+(?:\([^()\"\n]*\)[\w.]*)*)\s*,"
    r"|(?:PasswordDeriveBytes|Rfc2898DeriveBytes)\()\s*@?\"(?P<value>(?:\\.|[^\"\\\n])*)\""
)
# A password by position in a call that opens a connection or logs in (PHP's `mysqli_connect(host, user, "…")`,
# `ldap_bind($c, $dn, "…")`, `oci_connect(user, "…")`, `imap_open`, `maxdb_change_user`, `ldap_exop_passwd`, the
# constructors `new PDO(dsn, user, "…")`, `new mysqli(…)`; Python's `connect(host, user, "…")`): no name on the
# line, so a literal after the first argument is one only when it looks like a password (_password_like); a named
# argument's (`user='…@…'`) is judged by its name's rules, not here.
_CONNECT_CALL = re.compile(
    r"(?:\bnew\s+(?:PDO|mysqli|maxdb)|\b(?:[A-Za-z_]\w*)?(?:connect|_bind|change_user|passwd|imap_open|login|logon))"
    r"\s*\((?P<args>[^()\n]*)\)"
)
_CALL_ARG = re.compile(r"""\s*(?:(?P<q>["'])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)|[^,"']*)\s*(?:,|$)""")
# a plain word (letters, then digits at the end: `admin123`, `mydb`), a host, a path, a pair: no password here
_PLAIN_WORD = re.compile(r"[A-Za-z]+(?:[_-][A-Za-z]+)*[0-9]*")
# A quoted string of blank-separated `name=value` pairs with a secret's name among them (libpq's `"host=… user=…
# password=…"`, PDO's `"pgsql:host=… secret=…"`, `"token=… user=admin"`), or `name= value` alone (`"token= …"`,
# the value generated): the value up to the next blank.
# (no brackets or commas in the pairs: `"connect(user=u, password=pw)"` is a call's code in a string)
_SPACED_PAIR = re.compile(
    r"(?i)(?P<q>[\"'])(?P<pre>(?:[^\s\"'=()\[\]{},]+=[^\s\"'=()\[\]{},]*[ \t]+)*)"
    r"(?P<name>(?:[\w.-]*[_.-])?(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_.-]?key|credentials?))="
    r"(?P<sp>[ \t]?)(?P<value>[^\s\"'()\[\]{},]+)(?P<post>(?:[ \t]+[^\s\"'=()\[\]{},]+=[^\s\"'=()\[\]{},]*)*)(?P=q)"
)
# A secret-named value compared by a method (Java's `password.equals("…")`, `getPassword().equals(…)`,
# either way round: `"…".equalsIgnoreCase(password)`).
_EQUALS_CALL = re.compile(
    r"(?i)\b(?P<name>" + _CODE_SECRET_NAME + r")(?:\(\s*\))?\s*\.\s*(?:equals|equalsignorecase|compareto)\(\s*"
    r"(?P<q>\")(?P<value>(?:\\.|[^\"\\\n])*)\""
    r"|(?P<q2>\")(?P<value2>(?:\\.|[^\"\\\n])*)\"\s*\.\s*(?:equals|equalsignorecase|compareto)\(\s*"
    # (C#'s comparison type after it: `"…".Equals(authToken, StringComparison.Ordinal)`)
    r"(?P<name2>" + _SECRET_NAME + r")(?:\(\s*\))?\s*(?:,\s*[\w.]+\s*)?\)"
)
# (what it needs: the first form from the name's secret word to the quote, the second its literal's end to the call;
# where the whole pattern tries a name from every letter and a literal from every `"`, 5 s over 9 MB of minified
# JavaScript holding `equals`)
_EQUALS_NAMED = _SECRET_CORE + r"[\w.$@-]*(?:\(\s*\))?\s*\.\s*(?:equals|equalsignorecase|compareto)\(\s*\""
_EQUALS_LITERAL = r"\"\s*\.\s*(?:equals|equalsignorecase|compareto)\("
_EQUALS_HINT = re.compile(r"(?i)" + _EQUALS_NAMED + "|" + _EQUALS_LITERAL)
# (its two forms apart, for a long line: the first tried only from _named_starts' starts)
_EQUALS_NAMED_HINT = re.compile(r"(?i)" + _EQUALS_NAMED)
_EQUALS_LITERAL_HINT = re.compile(r"(?i)" + _EQUALS_LITERAL)
# A secret-named value compared by a function (PHP's `strcmp($password, "…")`, `strcasecmp`, `hash_equals`, C's
# `strncmp(token, "…", n)`), either way round; `auth` alone judged by looks_random.
# (the parts before the name: chains of `a.b` joined by `->` or `::`, each read once, then the name, which holds dots
# itself, or `a.b.` then `auth`; where parts ending in `.` were tried one by one before the name, 10 KB of `a.a.…`
# in one call read the rest of the run from each: 13 CPU s. The same names match, with the same span.)
_CMP_NAME = (r"(?P<{g}>\$?(?:[A-Za-z_$][\w$]*+(?:\.[A-Za-z_$][\w$]*+)*+(?:->|::))*(?:(?i:" + _SECRET_NAME
             + r")|(?:[A-Za-z_$][\w$]*\.)*" + _AUTH_NAME + r"))")
_CMP_CALL = re.compile(
    r"\b(?i:str(?:n?case)?n?cmp|hash_equals|timingsafeequal|constant_time_compare|compare_digest)\(\s*(?:"
    + _CMP_NAME.format(g="name") + r"\s*,\s*(?P<q>[\"'])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"
    r"|(?P<q2>[\"'])(?P<value2>(?:\\.|(?!(?P=q2))[^\\\n])*)(?P=q2)\s*,\s*" + _CMP_NAME.format(g="name2") + r"(?![\w(\[]))"
    # the call's end after the two (a length's number or name after them: `strncmp(token, "…", 8)`; a third
    # string makes no comparison of these two)
    r"(?=\s*(?:\)|,\s*[\w$.>-]+\s*\)))"
)
# A setter named for a secret given one literal and nothing else (Java's `ds.setPassword("…")`, JSch's
# `session.setPassword("…")`, a builder's `.withApiKey("…")`, Python's `set_password('…')`, C#'s `SetSecret("…")`):
# the literal is what the code sets. `set`/`with` then a capital or `_` (`settoken(` and `without…` are none), and
# the secret's word last (`setPasswordEncoder("bcrypt")`, `setTokenizer(…)`, `setSecretName(…)` set no secret).
# The setter's name may be the word for a password in French, German, Portuguese, Spanish or Dutch
# (`v.setMotDePasse("…")`, `usuario.setSenha("…")`; after `set` only, not `with`): a literal given to it is judged
# as a password's.
_FOREIGN_PASSWORD = r"(?:mot(?:de|_de_)passe|passwort|senha|contrase(?:ñ|n)a|wachtwoord)"
_FOREIGN_AT_END = re.compile("(?i)" + _FOREIGN_PASSWORD + "[0-9]*$")
# What a line holding one of those words holds, lower-cased (the gate of _SETTER_CALL on a line with no secret's word)
_FOREIGN_HOT = ("passe", "senha", "passwort", "contrase", "wachtwoord")
_SETTER_CALL = re.compile(
    r"\b(?:[sS]et|SET|[wW]ith)(?:_|(?=[A-Z]))(?P<name>[A-Za-z0-9_]*?(?i:" + _SECRET_CORE + "|" + _FOREIGN_PASSWORD
    + r")[0-9]*)"
    r"\s*\(\s*(?P<pre>@|[bBrRuU]{1,2})?(?P<q>[\"'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)\s*\)"
)
# A builder's method named for a secret, given one literal and nothing else (find-sec-bugs' `v.secretKey("…")`,
# `.password("…")`, `.apiKey("…")`, `.clientSecret("…")`): after a `.`, the whole name a secret's word, or one
# after a word of a few that qualify a secret (client, app, api, access, auth, admin, …). Not a getter's, a
# hasher's or a reader's (`getSecret("name")`, `readPassword("Password: ")`: their prefix is no qualifier), nor a
# bare `token`/`credentials` (a lexer's `.token("if")`, fetch's `.credentials("same-origin")`); a value with a blank
# or ending in `:` or `?` is a prompt's text (`questionary.password("Password:")`), kept by _method_call.
_METHOD_CALL = re.compile(
    r"\.(?!(?i:token|credentials?|creds)[0-9]*\s*\()(?P<name>(?i:(?:client|consumer|app|api|access|auth|admin|root|db|"
    r"user|master|bearer|refresh|private|signing|secret|shared|session)_?)?(?i:" + _SECRET_CORE + r")[0-9]*)"
    r"\s*\(\s*(?P<pre>@|[bBrRuU]{1,2})?(?P<q>[\"'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)\s*\)"
)
# JSch's `addIdentity(prvkey, passphrase)` and its byte forms (`addIdentity(prvkey, pubkey, "…".getBytes())`,
# `addIdentity(name, prvkeyBytes, pubkeyBytes, "…".getBytes())`): the last argument, when it is a literal, is the
# key's passphrase. The arguments before it read up to the call's own `)` (one level of brackets inside).
_ADD_IDENTITY = re.compile(
    r"\baddIdentity\s*\((?P<name>)(?:[^()\n]|\([^()\n]*\))*?,\s*(?P<q>\")(?P<value>(?:\\.|[^\"\\\n])*)\""
    r"(?:\s*\.\s*getBytes\s*\([^()\n]*\))?\s*\)"
)
# A key built from a literal's bytes (Java's `new SecretKeySpec("…".getBytes(), "AES")`, C#'s `new
# SymmetricSecurityKey(Encoding.UTF8.GetBytes("…"))`, `new HMACSHA256(Encoding.ASCII.GetBytes("…"))`): the literal is
# the key.
_KEY_BYTES = re.compile(
    r"\b(?P<name>SecretKeySpec|SymmetricSecurityKey|HMAC(?:SHA(?:1|256|384|512)|MD5))\s*\(\s*"
    r"(?:(?P<q>\")(?P<value>(?:\\.|[^\"\\\n])*)\"\s*\.\s*getBytes\s*\("
    r"|(?:System\.)?(?:Text\.)?Encoding\.\w+\.GetBytes\s*\(\s*(?P<q2>\")(?P<value2>(?:\\.|[^\"\\\n])*)\"\s*\))"
)
# A string constructed from a literal under a secret's name (C++'s `std::string secret("…")`, `{"…"}`, Qt's QString).
_STRING_CTOR = re.compile(
    r"(?i)\b(?:(?:std::)?(?:basic_)?(?:w|u8|u16|u32)?string(?:_view)?|qstring|cstring)\s+(?P<name>"
    + _SECRET_NAME + r")\s*[({]\s*(?P<pre>L|u8|u|U)?(?P<q>\")(?P<value>(?:\\.|[^\"\\\n])*)\"\s*[)}]"
)
# ... or a generated literal through an encoding's call (`JWT_PASSWORD = TextCodec.BASE64.encode("…")`,
# `secret = base64.b64decode("…")`, `Buffer.from("…", "base64")`, `new String("…")`): the literal is the secret.
_WRAPPED_LITERAL = re.compile(
    r"(?i)(?P<name>" + _SECRET_NAME + r")[\"'\]]?\s*(?::\s*[\w.\[\]<>]+\s*)?=\s*(?:new\s+)?(?:[\w.]+\.)?"
    r"(?:(?:b64|base64|b32|hex|url)?(?:en|de)code\w*|bytes|bytearray|String|from|unhexlify)\(\s*"
    r"(?P<q>[\"'])(?P<value>[^\"'\\\s]{12,400})(?P=q)"
)
# (what _WRAPPED_LITERAL needs, found from the call: a part of its pattern, so the same lines are changed; where the
# whole pattern tries a name from every identifier's letters, 7.9 s over a 0.3 MB minified file's long lines)
_WRAPPED_HINT = re.compile(r"(?i)(?:code\w*|bytes|bytearray|string|from|unhexlify)\(\s*[\"'][^\"'\\\s]{12,400}[\"']")
# ... or spelt one character at a time (Java's `char[] password = { 's', 'e', 'c', … }`, `{"s", "e", …}`): the
# characters joined are judged as `name = "…"` is.
_CHAR_ONE = r"""(?:'(?:[^'\\\n]|\\.)'|"(?:[^"\\\n]|\\.)")"""
# (its array's opening, what _CHAR_ARRAY needs: found from the `{`, where _CHAR_ARRAY scans from every name's letters,
# 2 s over a 0.9 MB minified line)
_CHAR_ARRAY_HINT = re.compile(r"\{\s*" + _CHAR_ONE + r"\s*,")
_CHAR_ARRAY = re.compile(
    r"(?i)(?P<name>" + _SECRET_NAME + r")\s*(?:\[\s*\])?\s*=\s*(?:new\s+char\s*\[\s*\]\s*)?\{\s*"
    r"(?P<chars>" + _CHAR_ONE + r"(?:\s*,\s*" + _CHAR_ONE + r")+)\s*,?\s*\}"
)
# C's `#define API_KEY "…"`.
_C_DEFINE = re.compile(r"(?i)^[ \t]*#[ \t]*define[ \t]+(?P<name>" + _SECRET_NAME + r")[ \t]+(?P<pre>[LuU]8?)?"
                       r"(?P<q>\")(?P<value>(?:\\.|[^\"\\\n])*)\"")
# An ini line with blanks around `=` and an unquoted value, spaces allowed (`password = hunter2 with
# spaces` in `.my.cnf`, `.pypirc`, `.s3cfg`, `credentials`); code (`password = input()`,
# `api_key = self.api_key`, `token = token or None;`) is told apart by _INI_CODE.
_INI_LINE = re.compile(
    r"(?i)^(?P<lead>" + _DIFF_MARK + r"[ \t]*)(?P<name>" + _SECRET_NAME + r")(?P<op>[ \t]+=[ \t]*|[ \t]*=[ \t]+)"
    # the value runs to its last character that is neither a blank nor a final carriage return (greedy; it was lazy,
    # and read a run of blanks again from each of its blanks: `db_password = x`, 20 KB of blanks, `# c` cost 4.3 CPU s
    # in this pattern on main); a `\r` is its last character only when more follows (`a\r\r`: `a\r`, as the lazy value).
    r"(?P<value>[^\s\"'`(\[{<$%@&*#](?:[^\n]*(?:[^ \t\n\r]|\r(?!$)))?)[ \t]*\r?$"
)
_INI_CODE = re.compile(
    r"[()\[\]{};]$|[();{}]|==|!=|->|=>|\|\||&&|\s(?:[-+*/%]|//|\*\*|<<|>>)\s|\b(?:if|else|or|and|not|new|await|lambda|is|in)\b"
    r"|^(?:true|false|none|null|nil|undefined|nan)$"
    # an enum's case by its leading dot (Swift's `passwordTxtField.rightViewMode = .always`)
    r"|^\.[a-z][A-Za-z0-9]*$"
    # a string prefix and an empty literal or a triple-quoted string's opening (`token = b''`, `token_end = r'''`)
    r"|^[bBrRuUfF]{1,2}(?:'{2,3}|\"{2,3})$"
    r"|^-?(?:0[xob][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?)[lLuUfF]*$"
    # an expression going on below: a member, then a switch or a ternary's `?` (OpenIddict's `context.AccessToken =
    # context.EndpointType switch`, `context.ExtractRefreshToken ?`), or `??` between two
    r"|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+[ \t]+(?:switch|\?\??)$|\s\?\?\s"
)
# A literal compared with a secret's name, the literal first (`if "…" == password`, `"…" !== token`: a Yoda
# condition): the twin of _QUOTED_ASSIGN's `password == "…"`, judged alike. The literal stands alone before the
# operator (no word or quote glued to its opening quote) and the name is all of the other side (`password.strip()`
# or `password[0]` is not the name compared).
_QUOTED_COMPARED = re.compile(
    r"(?<![\w\"'`\\])(?P<pre>@|[bBrRuU]{1,2})?(?P<q>[\"'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"
    r"(?P<op>\s*(?:[!=]==?|<=>)\s*)(?P<name>(?i:" + _SECRET_NAME + r")|" + _AUTH_NAME + r")(?![\w.$@(\[-])"
)
# (what it needs, for a long line: its comparison and name, found from the operator's first character, where the whole
# pattern reads every literal of a minified line to its end)
_COMPARED_HINT = re.compile(
    r"(?:[!=]==?|<=>)\s*(?:(?i:" + _SECRET_NAME + r")|" + _AUTH_NAME + r")(?![\w.$@(\[-])")
# A literal under a name whose last word is `pw` or `cred` (`pw = "…"`, `db_pw`, `awsCred := "…"`): abbreviations
# that name other things too (a pen's or a page's width, a credit), so not secrets' names alone (_SECRET_CORE):
# the value is a secret only when it looks generated, as under a weak name (_WEAK_QUOTED).
_SHORT_NAMED = re.compile(
    r"(?P<name>\b(?:[A-Za-z_$][\w$]{0,100}?)?(?i:pw|cred))(?P<op>[\"']?\]?\s*(?::{1,3}=|\?=|=>|=|:)\s*)"
    r"(?P<q>[\"'`])(?P<value>[^\"'`\n\\]{16,200})(?P=q)"
)
# ... and a name whose last word is `pass` after another word (`pg_pass`, `test_pass`, `dbPass`, `DB_PASS`): `pass`
# alone is a keyword, a test's verdict or a step (`bypass`, `compass`, `first_pass`, `pass_through` never end so or
# are glued), so the value is a password only when it looks generated, or like a password (letters with digits or
# signs inside, not a plain word: `sup1rstr0ngpass2ForTT`), eight characters or more; so also `pass` numbered
# (`pass2`, `PASS1`: a form's password and its confirmation). After an account's word (`db_pass`: _PASS_HOLDERS) four
# characters are enough.
# (Names here and in _SHORT_NAMED and _WEAK_QUOTED are 100 characters at most before their last word:
# unbounded, each start inside a long run of name characters, `a$a$a$…`, was read to the run's end, 7 s at 20,000.)
_PASS_NAMED = re.compile(
    r"(?P<name>\b[A-Za-z_$][\w$]{0,100}?(?:[A-Za-z0-9]_(?i:pass)|[a-z0-9]Pass|[A-Z0-9]PASS)|\b(?i:pass)[0-9]{1,2}\b)"
    r"(?P<op>[\"']?\]?\s*(?::{1,3}=|\?=|=>|=|:)\s*)(?P<q>[\"'`])(?P<value>[^\"'`\n\\]{4,200})(?P=q)"
)
# A literal under a name that ends in the word "key" or "token" without saying which
# (`HEROKU_KEY`, `hubspotKey`, `sort_key`): a secret only when the value looks generated.
_WEAK_QUOTED = re.compile(
    r"(?P<name>\b[A-Za-z_$][\w$.]{0,100}?(?:[a-z0-9](?:Key|Token|Login)"
    r"|[_.](?:KEY|TOKEN|AUTH|LOGIN|key|token|auth|login|Key|Token|Auth|Login))"
    # `auth` alone as the name (`string auth = "…"`, `arg?.auth = …`), a C# property's accessors after the name
    # (`x_auth { get; set; } = "…"`), a compound assignment (`d_auth += "…"`)
    r"|\b(?:auth|AUTH|Auth|oauth|OAUTH|OAuth|oAuth)\b(?![.(]))" + _ACCESSORS +
    # (a comparison too: `$auth == "…"`, PHP's `<=>`)
    r"(?P<op>[\"']?\]?\s*(?:[!=]==?|<=>|:{1,3}=|\?=|=>|\+=|=|:)\s*)(?P<q>[\"'`])(?P<value>[^\"'`\n\\]{12,200})(?P=q)"
)
# (what it needs, found from the name's last word: the rest of the pattern as it is, from that word on. The whole
# pattern tries its lazy name from every word's start and reads the run of [\w$.] to its end from each, quadratic: 10 KB
# of `a.a.a.…` before ` || "x"` took 2.5 CPU s, on main too. A line is searched only when this finds something, and
# then only from the starts _weak_starts gives.)
_WEAK_HINT = re.compile(
    r"(?:[a-z0-9](?:Key|Token|Login)|[_.](?:KEY|TOKEN|AUTH|LOGIN|key|token|auth|login|Key|Token|Auth|Login)"
    r"|\b(?:auth|AUTH|Auth|oauth|OAUTH|OAuth|oAuth)\b(?![.(]))" + _ACCESSORS +
    r"[\"']?\]?\s*(?:[!=]==?|<=>|:{1,3}=|\?=|=>|\+=|=|:)\s*(?P<q>[\"'`])[^\"'`\n\\]{12,200}(?P=q)"
)
# Secret-sounding names that hold no secret (`max_tokens`, `password_policy`).
_NOT_SECRET_NAME = re.compile(
    r"(?i)(tokeniz|tokens?[_.-]?(type|url|uri|endpoint|file|path|count|limit|len|length|name|field|expir|ttl|"
    r"lifetime|lifespan|usage|kind|str|ids?|index|offset|pos|prob|logit|mode|stream|scopes?)|max[_-]?tokens|"
    # a plural names many (`total_tokens`, `MAX_TOTAL_TOKENS`): a count or a list, not one secret
    r"tokens(?![a-z])|(?<!access[_.-])(?<!access)key[_.-]?(name|id|type|path|file|vault|size|length|alias)|"
    # the name of the header that carries a key (`ApiKeyHeader`), not `ApiKeyHeaderValue`
    r"(key|tokens?)[_.-]?header([_.-]?name)?(?!\w)|publishable|public[_.-]?(key|token)|authenticity[_.-]?token|"
    # what names a stored credential or says where one is (Jenkins' `credentialsId`, `credentials.url`)
    # (not Vault's `secret_id`: a secret)
    r"(credentials?|creds)[_.-]?(configuration[_.-]?)?(ids?|identifiers?)(?![a-z])|"
    # a credential object's member that is no secret (`networkCredential.Domain`, `credentials.UserName`)
    # (and its type's name: CodeBuild's `ImagePullCredentialsType`)
    r"(credentials?|creds)[_.-]?(domain|realm|user(name)?|login|type|kind)s?(?![a-z])|"
    # where a credential comes from or how it is got (`credential_source == "token_provider"`, `credentials_mode`)
    r"(credentials?|creds)[_.-]?(source|provider|mode|method|strategy|store|helper|count)s?(?![a-z])|"
    # (a policy about them: WebAuthn's `credentialProtectionPolicy: "userVerificationOptional"`)
    r"(credentials?|creds)[_.-]?(protection[_.-]?)?polic(y|ies)(?![a-z])|"
    r"(credentials?|creds|secrets?|passw(or)?d)[_.-]?(mount[_.-]?)?(url|uri|host|endpoint|server|file|path|dir)s?"
    r"(?![a-z])|"
    # a setting about the password (Ansible's `password_expire: never`, `update_password: on_create`)
    r"passw(or)?d[_.-]?expir(e[sd]?|y|ation)(?![a-z])|(?<![a-z])update[_.-]?passw(or)?d(?![a-z])|"
    # a setting about a key or a secret, not one (`SECRET_KEY_ALGORITHM = "AES"`, `api_key_format: "sk-[48 …]"`,
    # `secret_rotation_days: 90`; `secret_rotation_key` is one)
    r"(key|secrets?|tokens?|passw(or)?d)[_.-]?(algorithm|algo|alg|format|rotation)s?(?![a-z])"
    r"(?![\w.-]*?(key|token|secret|passw|pwd))|"
    # (and what serves or checks passwords: Laravel's `AUTH_PASSWORD_BROKER`, `PASSWORD_ARGON2_PROVIDER`)
    r"passw(or)?d[_.-]?(?:[a-z0-9]{1,12}[_.-])?(broker|provider|driver|hasher)s?(?![a-z])|"
    # how long a password's reset code lives (gogs' `RESET_PASSWORD_CODE_LIVES = 180`, minutes)
    r"passw(or)?d[_.-]?code[_.-]?(lives|life(time)?|ttl|timeout)(?![a-z])|"
    r"passw(or)?d[_.-]?(policy|length|hash|hint|field|label|reset|url|min|max|rules?|placeholder|input|mgr|manager|"
    # (the characters a generator draws from: mutillidae's `lPasswordCharset = "ABC…xyz0123456789"`)
    r"charset|chars|characters|alphabet|"
    # the name of where a password is kept (`passwordName = "UserPasswordValue"`), as `secretName` is
    r"name(?![a-z]))|"
    # what names or points at a secret (Kubernetes' `secretName`, `secretKeyRef`, a vault path), or says which kind it
    # is (a scanner's `"secret_type": "adafruit_io_key"`)
    # (and the class of a CSI driver's provider of them: `secretProviderClass: "app-aws-secretsmanager"`)
    r"secrets?[_.-]?(name|namespace|ref|key[_.-]?ref|store|provider([_.-]?class)?|arn|path|version|manager|type|kind)s?"
    r"(?![a-z])|"
    # where a secret comes from (JupyterHub's `secret_from = 'env'`), no secret's word after it (`secret_source_token`)
    r"secrets?[_.-]?(from|source|origin)([_.-]?env)?(?![a-z])(?![\w.-]*?(key|token|secret|passw|pwd))|"
    # "secret" inside another word (`secretary`, `secretariat`), the name's only secret word (`secretarySecret`,
    # `secretary_password` are secrets' names)
    r"^(?!.*(secret(?!ar(y|ies|iat))|passw|pwd|token|key|cred|auth))[^\n]*?secretar(y|ies|iat)|"
    # a login without a password (Ruby's Passwordless gem: `Passwordless.default_from_address`), the name's only
    # secret word
    r"^(?!.*(secret|pwd|token|key|cred|(?<!web)auth(?!n)|passw(?!(or)?dless)))[^\n]*?passw(or)?dless|"
    # "key" inside another word (`okapi-keyboard`: `api-key` read across two words), the name's only secret word
    r"^(?!.*(secret|passw|pwd|token|cred|auth|key(?!(board|stroke|frame|pad)s?)))[^\n]*?key(board|stroke|frame|pad)|"
    r"key[_.-]?ref(?![a-z])|(key|token)[_.-]?(hash|digest|checksum|sha\d*|md5|fingerprint)(?![a-z])|"
    # a name whose last word says its value is an address or holds a secret's place (`TOKEN_EXCHANGE_URL`,
    # `tokenEndpoint`, `API_KEY_PLACEHOLDER`): credentials inside an address are found by their form (`user:pw@`, a
    # query's `token=`, a webhook's URL), never by this name
    r"(?:[_.-](?:url|uri|endpoint|placeholder)|(?-i:(?<=[a-z0-9])(?:Url|Uri|URL|URI|Endpoint|Placeholder)))s?"
    r"[\"'\]]?$|"
    # ... or a hash, a salt or a digest of one (`MasterPasswordAuthenticationHash = "authHash"`, `passwordSalt`): a
    # password's hash is found by its form (crypt, bcrypt: the rule table), a hex or base64 one by _hash_name
    r"(?:[_.-](?:hash|salt|digest)|(?-i:(?<=[a-z0-9])(?:Hash|Salt|Digest|HASH|SALT|DIGEST)))(?:e?s)?[\"'\]]?$|"
    # a request's idempotency key (`idempotency_key="KG5LxwFBepaKHyUD"`): random, and no credential
    r"idempotency[_.-]?key|"
    # what was read from a secret, named before "from" (oauth2-proxy's `EmailFromIDToken: "foo1@example.com"`, a
    # claim), no secret's word before it (`passwordFromEnv` is a password)
    r"^(?:(?!secret|passw|pwd|token|key|cred|auth)[a-z0-9])+(?:_from_|(?-i:From(?=[A-Z])))|"
    # a CI step's reference to a stored secret by its name (Woodpecker's and Drone's `from_secret: aws_secret_key`)
    r"(?<![a-z])from[_.-]?secrets?[\"'\]]?$|"
    # an MSBuild property listing targets (`InsertAdditionalWebCofigConnectionStringsDependsOn`, `…BeforeTargets`)
    r"(?:depends[_.-]?on|(?:before|after)[_.-]?targets)[\"'\]]?$|"
    # a table's key: a row's reference to another's (CakePHP fixtures' `'aco_foreign_key' => '73e3309f-…'`), the
    # key rows are sorted or partitioned by; a secret's word after it (`foreign_key_secret`) is still one
    r"(?:foreign|sort|partition)[_.-]?keys?(?![a-z])(?![\w.-]*?(token|secret|passw|pwd))|"
    # what makes passwords, not one (passbolt's `PasswordGenerator`, `PASSPHRASE_GENERATOR_WORDS_CASE_LOWER`)
    r"(?:passw(?:or)?d|passphrase)[_.-]?generators?(?![a-z])|"
    # a name whose last word says it points at the secret (`SECRET_VAULT_REF`, `db_password_reference`)
    r"[_.-]ref(erence)?s?(?![a-z0-9_])[\"'\]]?$|"
    # .NET's user-secrets store id (`<UserSecretsId>` in a project file: a GUID naming a folder), an OpenID provider's
    # list of what it supports (`id_token_signing_alg_values_supported`), a switch that hides or shows passwords
    # (`hidePasswords: 0.04`), how long a credential lives (Cassandra's `credentials_validity_in_ms: 2000`)
    r"user[_.-]?secrets[_.-]?id(?![a-z])|(?:alg|algs|values|methods|types)[_.-]?supported(?![a-z])|"
    r"(?<![a-z])(?:hide|show|mask|reveal|toggle)[_.-]?(?:passw|secret|token)|"
    r"(?:validity|timeout|ttl)(?:[_.-]?in)?(?:[_.-]?(?:ms|millis|seconds?|secs?|minutes?|mins?|hours?|days?))?"
    r"[\"'\]]?$|"
    # a name that negates its secret word (`'not-secret'`, `non_secret`, `no-password`, `not_a_token`)
    r"(?<![a-z])(not?|non)[_.-](an?[_.-])?(secret|passw|pwd|token|key|cred|api[_.-]?key)|(?<![a-z])n(ot|on)secret)"
)
# Values on a config-shaped line that are type annotations or code, not secrets.
_NOT_A_VALUE = re.compile(
    r"(?i)^(?:str|string|int|bool|boolean|number|bytes|any|object|none|null|nil|true|false|undefined|"
    r"optional|secretstr|secretbytes|\[REDACTED\])$|[();,\[\]{}<>]|\s=|=\s|^=|^\$\{|^\{\{|^%\w+%$|"
    # a bare CamelCase word after `name:` is a type annotation far more often than a secret
    r"(?-i:^_?[A-Z][a-z]+(?:[A-Z][a-z]+)*$)|"
    # a ternary of references, no literal (Terraform's `local.is_primary ? var.db_password : null`)
    r"(?-i:^!?[A-Za-z_][\w.]*[ \t]+\?[ \t]+[A-Za-z_][\w.]*[ \t]+:[ \t]+[A-Za-z_][\w.]*$)|"
    # ... and so are a module's type (`builtins.str`, `torch.Tensor`, `grpc.ServerCredentials`) and a union
    # (`str | None`)
    r"^(?:builtins|typing|t|np|numpy|pd)\.\w+$|(?-i:^(?:[a-z_][a-z0-9_]*\.)+_?[A-Z][A-Za-z0-9]*$)|^[\w.]+(?:[ \t]*\|[ \t]*[\w.]+)+$"
)
# A connection string: at least two `;`-separated `name=value` parts (one
# part alone is as likely a statement: `user = get_user();`).
# (the `;` of `&amp;`, a URL's query written in XML or HTML, separates nothing; `Password=Tr0ub4dor&3;` ends at `;`)
_CONN_PAIR = r"[ \t]*[A-Za-z][\w .]{0,40}=[^;\n\"'<>&]*(?:&(?!amp;)[^;\n\"'<>&]*)*"
_CONN_STRING = re.compile(rf"(?:{_CONN_PAIR};)+{_CONN_PAIR};?")
_CONN_CRED = re.compile(
    r"(?i)(^|;)([ \t]*(?:password|pwd|secret|user[ \t]*id|uid|user(?:name)?|"
    r"(?:shared[ \t]*)?access[ \t]*key|account[ \t]*key|shared[ \t]*access[ \t]*signature|sig)[ \t]*=[ \t]*)"
    r"([^;]*)"
)
_SECRET_WORDS = ("secret", "passw", "pword", "passphrase", "pwd", "token", "connection", "credential", "creds", "key")


def _has_secret_word(text: str) -> bool:
    # str.lower + substring search: ~20x faster than a case-insensitive alternation.
    low = text.lower()
    return any(word in low for word in _SECRET_WORDS)
# scheme://user:password@host
# (a password may hold `@` when another `@` follows before the path: `user:p@ss@host`, the lookahead read to the next
# `@` only, not to the line's end from each `@`, quadratic on a run of them; the user one `@` when a `:` and a
# password's `@` follow: an e-mail address as the user, a .git-credentials line's `https://me@example.com:…@host`)
_URL_CRED = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^\s:/@\"'<>]+(?:@[^\s:/@\"'<>]+)?):"
                       r"((?:[^\s@/\"'<>]|@(?=[^\s/\"'<>,@]*@))+)@")
# the other hosts of a multi-host URI (`postgresql://u:p@h1:5432,u:p@h2:5433/db`)
_URL_CRED_MORE = re.compile(r"(@[\w.\[\]-]+(?::\d+)?),([^\s:/@\"'<>,]+):([^\s@/\"'<>,]+)@")
# An XML key/value pair whose key is secret-shaped, either order, other attributes between:
# .NET's `<add key="ApiKey" value="…"/>`, `<add key="AzureAd:ClientSecret" …>`, `<setting
# name="AuthToken" value="…">`. One branch per quote, so `value="ab'c"` is one value.
_XML_NAME = r"""(?:"(?P<n1>[^"\n]*?{core}[^"\n]*)"|'(?P<n2>[^'\n]*?{core}[^'\n]*)')"""
_XML_VALUE = r"""(?:"(?P<v1>[^"\n]*)"|'(?P<v2>[^'\n]*)')"""
_XML_ATTRS = r"""(?:\s+[\w:.-]+\s*=\s*(?:"[^"\n]*"|'[^'\n]*'))*?"""
_XML_PAIRS = tuple(re.compile("(?i)" + pattern.replace("{core}", _SECRET_CORE)) for pattern in (
    r"\b(?:key|name)\s*=\s*" + _XML_NAME + _XML_ATTRS + r"\s+value\s*=\s*" + _XML_VALUE,
    r"\bvalue\s*=\s*" + _XML_VALUE + _XML_ATTRS + r"\s+(?:key|name)\s*=\s*" + _XML_NAME,
))
# A settings value that names where the secret comes from, not the secret.
_PLACEHOLDER = re.compile(r"(?i)^(?:\$[({]|\{\{|#\{|%\w+%$|true$|false$)")
# A command-line flag that takes a secret: `--api-key abc123`, `--password=hunter2`,
# `--account-key "…"`, PowerShell's `-ApiKey abc` / `nuget push -ApiKey abc` (after a space or
# a quote: `x -token` alone is also code). A variable (`$KEY`, `%KEY%`, `$(Key)`), a redirect,
# an ALL-CAPS metavar (`--token TEXT`) or a prose word ("the --password option") is not a value.
_CLI_FLAG = re.compile(
    r"(?i)(?P<flag>(?:(?<![\w-])--(?!no[_-])(?:[\w-]*[_-])?(?:tls)?|(?<![^\s\"'])-[a-z]*)" + _SECRET_CORE + r")"
    r"(?P<op>[ \t]+|=)"
    r"(?:(?P<q>[\"'])(?P<qv>(?![$%{])[^\"'\n]+)(?P=q)|(?P<v>[\w./:@!][^\s\"'`<>;|&]*))"
)
# A build secret's mount, which names the secret and where it is read from (`docker build --secret
# id=npm_token,src=.npmrc`, `--secret id=aws,env=AWS_TOKEN`), not its value.
_MOUNT_SPEC = re.compile(r"(?:id|type|src|source|env|target|dst|required|mode|uid|gid)=[^\s,]*"
                         r"(?:,(?:id|type|src|source|env|target|dst|required|mode|uid|gid)=[^\s,]*)*")
# A help text's placeholder for the value (`--token TEXT`, `--password PASSWORD`).
_METAVAR = re.compile(r"[A-Z][A-Z_]*")
# The value's type in a Go command's help (cobra's and pflag's `--encryption-key string   the storage encryption key
# to use`): a type's name, then the description after two blanks or more.
_FLAG_TYPES = frozenset("string strings stringArray stringSlice stringToString int int32 int64 uint uint32 uint64 bool "
                        "duration float32 float64 bytesHex bytesBase64 ip ipNet".split())
_FLAG_TYPE_GAP = re.compile(r"[ \t]{2,}\S")
# Words that follow a flag in prose or help text, not its value.
_PROSE_AFTER_FLAG = frozenset(
    "a above an and are as be below by can else false flag flags for from given here if in instead is it "
    "must no none not null of on only option options or parameter requires see should switch the then "
    "to true value values was when will with yes".split())
# An .npmrc registry credential: `//registry.npmjs.org/:_authToken=npm_…`, `_auth=…`, `_password=…`;
# not `${NPM_TOKEN}`, and never past a closing quote (`echo '…:_authToken=x' > .npmrc`).
_NPMRC_CRED = re.compile(
    r"(?i)(?P<head>:_(?:authtoken|auth|password)[ \t]*=[ \t]*)(?P<value>[^\s$\"'{%`][^\s\"'`]*)"
    # at a line's start only the whole line `_auth=…`: `_password = string.Empty;` is code
    r"|^(?P<lead>[ \t]*_(?:authtoken|auth|password)=)(?P<bare>[^\s$\"'{%`;,()][^\s\"'`;,()]*)[ \t]*$"
    # `_auth = …` with blanks (an .npmrc written by hand): only a value that looks generated (`_auth = None`,
    # `_password = password` are code)
    r"|^(?P<lead2>[ \t]*_(?:authtoken|auth|password)[ \t]+=[ \t]*|[ \t]*_(?:authtoken|auth|password)=[ \t]+)"
    r"(?P<spaced>[A-Za-z0-9+/=_.~-]{12,})[ \t]*\r?$")


# ---------------------------------------------------------------- precision ---
# A value that holds no secret whatever its name: a reference to where the
# secret comes from, a placeholder, a phrase of words, an identifier naming a key.
# SQL's named parameter for the secret, letters only (`:password`, `@pwd`, `:db_password`); `:param` is none:
# Sonar's own checks disagree on it (the password check calls `password=:param` a finding)
_BIND_PARAM = r"[:@][A-Za-z_]*(?:passw(?:or)?d|pwd|secret|token|key|credentials?)[A-Za-z_]*"
_REFERENCE_OR_PLACEHOLDER = re.compile(
    # (a command's output, `$(cat /run/secrets/db)`, `$` doubled for Compose too)
    r"(?i)^(?:\s*|.|[▁Ġ]?<[^<>]*>|&lt;.*&gt;|\$\$?\{.*\}|\$\$?\(.*\)|"
    # (PHP's complex interpolation, `{$_SESSION['token']}`, cut at a quote inside it: `value='{$_SESSION[ `; Swift's,
    # `\(password)`)
    r"\$\$?[A-Za-z_]\w*|%[A-Za-z_]\w*%|\{\{.*\}\}|#\{.*\}|\{\$[A-Za-z_].*|\\\([^()\n]*\)|"
    # (a server page's code where the value goes, cut at a quote: `value="<?php echo $this->getToken(`, `<%= token %>`;
    # PHP's interpolation after words: `"auth_{$config}_twitter_token"`)
    r"<\?(?:php\b|=).*|<%.*|[\w-]*\{\$[A-Za-z_][\w\->\[\]'\"]*\}.*|"
    # (FreeMarker's directive or macro where the value goes: Struts' `accesskey="<#outputformat 'JavaScript'>…"`)
    r"<[#@][a-z].*|"
    # (variables run together, maybe after a word: secDevLabs' `SECRET=$RANDOM$RANDOM`, `PASSWORD=Pass$RANDOM$RANDOM`,
    # made when the script runs, the environment's names in upper case, not a literal's `$super$ecret`; a member of
    # `this` or `self`: `password: this._password`)
    r"(?-i:[A-Za-z]*(?:\$\{?[A-Z_][A-Z0-9_]*\}?){2,})|(?:this|self)\.[A-Za-z_$][\w$]*|"
    # (markup: an element and what follows, `passwordMeter = '<div class="password-strength">…'`, no URL in it: a
    # link's `http://user:pw@…` is judged as a URL)
    r"<[a-zA-Z][\w-]*(?:\s[^<>]*)?>(?!.*://).*|"
    # (PHP's variables or members joined by a colon in a string: nusoap's `"$this->username:$this->password"`)
    r"\$[A-Za-z_]\w*(?:->\w+)*(?::\$[A-Za-z_]\w*(?:->\w+)*)+|"
    # a variable escaped for a shell or doubled for Compose (`"\$PASSWORD"`, `"$${DB_PASSWORD}"`: the `$$` above), a
    # secret store's reference (Azure App Service's `@Microsoft.KeyVault(SecretUri=…)`), a prompt for the value
    # (PowerShell's `Read-Host "…" -AsSecureString`, `Get-Credential`)
    r"\\\$\{?[A-Za-z_]\w*\}?|@Microsoft\.KeyVault\(.*\)|(?-i:Read-Host|Get-Credential)\b.*|"
    # a variable with a path after it (`$BASE_URL/reset`), a variable in shell quotes (`'$DB_PASSWORD'`),
    # a bracketed phrase (`[Shared Access key goes here]`)
    r"\$\{?[A-Za-z_]\w*\}?/.*|'\$\{?[A-Za-z_]\w*\}?'|\"\$\{?[A-Za-z_]\w*\}?\"|\[[^\[\]\n]*\s[^\[\]\n]*\]|"
    r"(?:process\.env|import\.meta\.env|os\.environ|env|environ|secrets|vars|config|settings|configuration)[.\[:].*|"
    # a config's reference to the environment or a file (LiteLLM's `os.environ/NAME`, opencode's `{env:NAME}` and
    # `{file:path}`), a vals reference to a secret store (`ref+vault://path#/key`, `ref+awssecrets://…`)
    r"os\.environ/[A-Za-z_]\w*|\{(?:env|file):[^{}\s]+\}|ref\+[a-z0-9]+://.*|"
    r"x{3,}|•+|(?:your|enter|insert)[\s_-].*|.*[_-](?:here|placeholder)|change[_-]?me|replace[_-]?me|"
    # `your` before capitalised words (hackazon's documented `['yourUserName'] = 'yourPassWord'`)
    r"(?-i:your(?:[A-Z][a-z]*)+)|"
    # a YAML anchor or alias of words (`credentials: &default-credentials`, `password: *shared`): a mapping's name
    r"(?-i:[&*][a-z]+(?:[-_][a-z]+)*)|"
    # a build's token to replace: an upper-case name between a pair of its delimiters (Maven's and Ant's `@DB_PASS@`,
    # `@@PASSWORD_PLACEHOLDER@@`, a template's `$SAFE_NAME$`, replace-token tasks' `#TOKEN#`, `__TOKEN__`,
    # `#{Db.Password}#`, `[%TOKEN%]`)
    r"(?-i:@@?[A-Z][A-Z0-9_]{2,}@@?|\$[A-Z][A-Z0-9_]{2,}\$|#[A-Z][A-Z0-9_]{2,}#|__[A-Z][A-Z0-9_]{2,}__|"
    # (lower case too, the underscores three or more: Security Shepherd's `keystorePass="___password___"`)
    r"_{2,}[a-z][a-z0-9]*(?:_[a-z0-9]+)*_{2,}|_{3,}[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_{3,}|"
    # (a workflow expression after words: actions/cache's `key: maven-output-${{ hashFiles('target/**') }}`)
    r"[a-z]+(?:[-_][a-z]+)*[-_]\$\{\{.*\}\}.*|"
    r"\[%[A-Z][A-Z0-9_]{2,}%\])|#\{[A-Za-z_][\w.-]*\}#|"
    # a single-brace template's hole of a name's letters (`{password}`, `{ DRONE_TOKEN }`; `{Zq5…}` is a
    # braced value), a literal of no value (`"null"`),
    # a CloudFormation reference (`!Ref DBPassword`, `!GetAtt Secret.Value`, `!Sub "${Pass}"`)
    # (also a JSONPath template's field, kubectl's `'{.credential.access_token}'`)
    r"(?:\{\s*\.?[A-Za-z_][A-Za-z_.-]*\s*\})+|null|none|nil|undefined|true|false|"
    # a Terraform reference quoted (`"var.mailgun_api_key"`, `"local.db_password"`): lower-case words
    r"(?-i:(?:var|local)\.[a-z][a-z0-9]*(?:_[a-z0-9]+)*)|"
    # a label to concatenate a value to: words, then a space and `=` or `:` (`"Password = "`; the value is read
    # stripped: `"application:"` is none, a value that a key follows in `"application:" + appKey`)
    r"[A-Za-z][A-Za-z ]*?\s[=:]|"
    # ... or a flag's name and `=` (`'--password='.$connection['password']`): the value is what follows
    r"--?[A-Za-z][\w-]*=|"
    # a bracketed word: a tokenizer's special token (`pad_token: str = "[PAD]"`, `"[CLS]"`, `"[X_SEP]"`), also
    # between other brackets or bars (`"|SPEAKER|"`, `"]<]start of image[>["`, `"[MASK2]"`)
    r"\[[A-Za-z_]+\]|[\[\]<>|{}]{1,4}[A-Za-z][A-Za-z_ -]*[0-9]{0,2}[\[\]<>|{}]{1,4}|"
    r"!(?:Ref|ImportValue|GetAtt|FindInMap|Select|If|Join)\s.*|!Sub\s.*\$\{.*|"
    r"placeholder|todo|tbd|dummy|redacted|\[REDACTED\]|not[_-]?set|unset|"
    # a placeholder word between runs of signs (`"--- redacted ---"`, `"== hidden =="`), a bracketed phrase after
    # signs (`" * [would prune] "`, a status line's template)
    r"[^\w\s]{2,}\s*(?:redacted|hidden|masked|omitted|removed|censored)\s*[^\w\s]{2,}|"
    r"[^\w\s\[]+\s*\[[a-z]+(?:\s[a-z]+)+\]|"
    # a call's other arguments read as a value between two strings' ends (`"…token:", default=api_token or "`)
    r",\s*[A-Za-z_]\w*\s*=[^=].*|"
    # a documentation's sample of the field (`ExamplePreSharedKey1`, `sample-api-token`)
    r"(?:example|sample)[_-]?[a-z_-]*(?:key|token|password|passwd|secret)\d*|"
    # truncated or masked (`hf_...`, `sk-…`, `hf_***`), a sample's name (`my_secret_key`, `secret_value`)
    r".*(?:\.\.\.|…|\*\*\*).*|(?:(?:my|some|the|example|sample|dummy|fake)[_-]){0,3}"
    r"(?:(?:secret|api|access|private)[_-])?(?:secret|token|password|key)s?(?:[_-]value)?|"
    # a format template (`%s_upgrades`, `{0}`), a regex, a call (`get_token()`), a URN
    # (.NET's composite format's hole with an alignment or a format: `{0,-8}`, `{0:#,0.00}`)
    r".*(?:(?-i:%[sdr])|%\(\w+\)[sd]|\{\d*\}|\{\d+(?:,-?\d+)?:[^{}\s]*\}|\(\?:|\\[wdsb]|\[\^).*|[\w.]+\(.*\)|[ua]rn:.*|"
    # a query's bind parameter named for the secret (`:password`, `@pwd`, `:myPassword`: _BIND_PARAM),
    # the end of one string and a concatenation read as a value (`'"+pwd+"'` in `"password='"+pwd+"'"`),
    # code between two strings' ends (`" + arg + secretConst + "`: `+` first and last, spaced)
    r"" + _BIND_PARAM + r"|[\"'`]\s*(?:\+|&|\|\||\.\s*[$\w]).*|.*(?:\+|&|\|\||[$\w]\s*\.)\s*[\"'`]|"
    # ... also PHP's `.` (`" . pwd . "`)
    r"\s*\+\s+[$\w].*\s\+\s*|\s*\.\s+[$\w][\w$>\[\]'\"-]*\s+\.\s*)$"
)
# One word of a phrase: letters (an apostrophe or a slash inside), maybe wrapped in punctuation, or a
# format hole; a class's name in camel case too (a docstring's `server_credentials: A ServerCredentials object.`),
# an identifier of lower-case words joined by `_` (`"with past_key_values"`, `For client_credentials with client_id`).
# (a word of another language's letters counts: `Passordet må ha minst 6 tegn.`, a UI message in Norwegian; one
# letter beyond ASCII at least, no digit)
_PHRASE_WORD = re.compile(
    r"""["'(\[`*]*(?:[A-Za-z][a-z]*(?:['/][A-Za-z][a-z]*)*|[a-z]+(?:_[a-z]+)+|[A-Z]+|"""
    r"""[A-Z][a-z]+(?:[A-Z][a-z]+)+|\{\w*\}|%[sd]|&|-|—|"""
    r"""[^\W\d_]*[^\x00-\x7f\W\d_][^\W\d_]*)"""
    r"""[.,:;!?)\]'"`*]*""")
# An identifier: words joined by `_`, `.`, `:`, `-` or camel case.
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_.:\-][A-Za-z0-9]+)*")
_IDENT_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_KEY_WORDS = frozenset(
    "token tokens key keys secret secrets password passwords passwd passphrase pwd credential credentials auth "
    "authorization apikey bearer jwt".split())


def _is_phrase(value: str) -> bool:
    """Words with spaces: all of them words in a short phrase (`hunter 2` is none),
    three in four of a longer one (a help text names `HF_TOKEN` or `--token`)."""
    parts = value.split()
    if len(parts) < 2 or not any(sum(c.isalpha() for c in p) >= 3 for p in parts):
        return False
    words = sum(1 for p in parts if _PHRASE_WORD.fullmatch(p))
    # numbers among three words or more (`"Spaces are UNEXPECTED 012 345 678"`)
    numbers = sum(1 for p in parts if p.isdigit())
    return words == len(parts) or (len(parts) >= 4 and words * 4 >= len(parts) * 3) or (
        words >= 3 and words + numbers == len(parts))


def _names_a_key(value: str, name: str = "") -> bool:
    """`"id_token"`, `"X-Api-Key"`, `"password"`: letters only, one word of them a
    secret's name, and either a short name (at most two words, ending in that word)
    or made of the words of the name that holds it (`UserAccessToken = "user_token"`).
    `"ini-plain-password"` is none of these: a value. Leading underscores are a name's
    (`"__RequestVerificationToken"`, a form field's)."""
    value = value.lstrip("_")
    if not _IDENTIFIER.fullmatch(value):
        return False
    if name and value.isalpha() and not _PASSWORD_WORD.search(name) and value.lower() in {
            w.lower() for w in _IDENT_WORDS.findall(name)}:
        return True  # one word of its own name (`access_key='access'`, a test's stand-in), not a password's
    words = [w.lower() for w in _IDENT_WORDS.findall(value)]
    if not all(w.isalpha() for w in words) or not any(w in _KEY_WORDS for w in words):
        return False
    if words[0] == "x" and len(words) > 1:  # a header's `X-` prefix
        words = words[1:]
    if len(words) <= 2 and words[-1] in _KEY_WORDS:
        return True
    # a property's or a field's name in camel case (`trustStorePassword`, `trustStoreSecret`): words
    # of letters, the last a secret's, each after the first capitalized
    if words[-1] in _KEY_WORDS and _CAMEL_NAME.fullmatch(value):
        return True
    if not name:
        return False
    own = [w.lower() for w in _IDENT_WORDS.findall(re.split(r"[.:]", name.strip("\"'`@$[] "))[-1])]
    # a kebab- or snake-case phrase of lower-case words ending in all the words of its own name, a name of two words
    # or more, with one or two more words before them (`client_secret: grafana-client-secret`, `some-client-secret`):
    # a label, not a value (`password = ini-plain-password` is a value: one word of a name is too little to repeat)
    if len(own) >= 2 and _KEBAB_WORDS.fullmatch(value) and 0 < len(words) - len(own) <= 2 and words[-len(own):] == own:
        return True
    return set(words) <= {w.lower() for w in _IDENT_WORDS.findall(name)}


_KEBAB_WORDS = re.compile(r"[a-z]{2,}(?:[-_][a-z]{2,})+")


_CAMEL_NAME = re.compile(r"(?:[a-z]+|[A-Z][a-z]+)(?:[A-Z][a-z]+){2,}")
_LETTERS_ONLY = re.compile(r"[a-z_]+|[A-Z_]+")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
# Words that make a token-named value an access token whatever it looks like.
_NOT_TOKEN_WORDS = frozenset(
    "password passwords passwd pwd secret secrets key keys apikey credential credentials api access auth bearer "
    "bot github gitlab slack npm pypi personal session oauth jwt csrf deploy service app client user admin "
    "refresh".split())


def _other_reference(value: str, name: str) -> bool:
    """`password=self.password`, `next_token=response.next_token`: the same name, elsewhere."""
    last = re.split(r"[.:]", name.strip("\"'`@$ "))[-1].lower()
    return bool(last) and bool(_DOTTED.fullmatch(value)) and value.rsplit(".", 1)[1].lower() == last


def _parser_token(value: str, name: str) -> bool:
    """A lexer's or a pager's token (`upgrade_token = "upgrades"`, `id_token: "FOOBAR"`):
    a token-named value of letters only in one case. An auth token is random: it has
    digits or mixed case. (A password or a key can be a plain word, and an `API_TOKEN`
    or an `access_token` is a credential whatever its value: not these names.)"""
    return bool(_LETTERS_ONLY.fullmatch(value) or (_PASCAL_WORDS.fullmatch(value) and not looks_random(value))) and (
        _lexer_token_name(name))


# Two to four capitalised words glued (`END_TOKEN = "EndGlobalSection"`, a solution file's section marker; sonar-dotnet's
# compliant case): under a lexer's token name, a marker's name, no token.
_PASCAL_WORDS = re.compile(r"(?:[A-Z][a-z]{2,}){2,4}")


def _lexer_token_name(name: str) -> bool:
    """A name whose only secret word is "token", with no word that makes it a credential (`mask_token`,
    `lastToken`, not `access_token`)."""
    words = {w.lower() for w in _IDENT_WORDS.findall(name)}
    return bool(words & {"token", "tokens"}) and not words & _NOT_TOKEN_WORDS


def _lexer_comparison(value: str, name: str) -> bool:
    """A literal compared with what is no secret: a lexer's token (`if token == "]]"`, `t.lastToken != "\\\\"`,
    `mask_token != "None"`; only a generated value is a secret under such a name), or a field of a secret-named
    object whose own name is none (`storage_key.device.type != "cpu"`)."""
    last = re.split(r"[.:]", name.strip("\"'`@$[] "))[-1]
    return _name_tier(last) == 0 or (_lexer_token_name(name) and not looks_random(value) and not _mixed_hex(value))


def _mixed_hex(value: str) -> bool:
    """Hex of 16 digits or more holding both digits and letters (`31bf3856ad364e35`): generated, no lexer's token."""
    return len(value) >= 16 and bool(_HEX_ONLY.fullmatch(value)) and re.search(r"[0-9]", value) is not None and (
        re.search(r"[A-Fa-f]", value) is not None)


# A documentation's or a test's sample written into a token's form, in capitals: a sample word at its end
# (AWS's `AKIAIOSFODNN7EXAMPLE`, `wJalr…EXAMPLEKEY`, `…SAMPLEKEY`, `…FAKEKEY`, `…TESTKEY`, `AKIATESTID`: "TEST"
# only with a name's word after it, a test-mode key is live), or EXAMPLE/SAMPLE at its start before more capitals or
# digits (`SAMPLEUtnFEMI/…`; not FAKE there: a test's own fake value is written `FAKE…` and stands for a real one). A
# random token holds such a word by chance once in millions.
_DOC_SAMPLE_RE = (r"(?:EXAMPLE|SAMPLE|FAKE|DUMMY)(?:KEY|TOKEN|SECRET)?$|TEST(?:KEY|TOKEN|SECRET|ID)$"
                  r"|^(?:EXAMPLE|SAMPLE)(?=[A-Z0-9+/_-])")
# A public key (an authorized_keys line), a hash with its algorithm (`sha512-…`, `sha256:…`), a
# documented sample (see _DOC_SAMPLE_RE), an environment variable's name (`OPENAI_API_KEY`).
_PUBLIC_OR_HASH = re.compile(
    r"(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)[ \t]+AAAA"
    r"|(?i:sha(?:1|224|256|384|512)|md5|blake2[bs]?|xxh\d+)[:-][A-Za-z0-9+/=_-]{16,}$"
    r"|.*(?:" + _DOC_SAMPLE_RE + ")"
    r"|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASS|PWD|CREDENTIALS?|AUTH)(?:_[A-Z]+)?$")
# A masked or templated part inside a value (`bP88Q~xxxxxxxx…`, `…-####`).
_PLACEHOLDER_RUN = re.compile(r"x{8,}|X{8,}|#{4,}|\*{4,}|•{3,}")
# A name that says its value is a hash or a lock file's digest: a hex or base64 value under it is none of a secret.
_HASH_WORDS = frozenset("hash hashes hashed digest checksum checksums integrity sha md5 fingerprint etag lock lockfile "
                        "crc sum".split())
_HASH_VALUE = re.compile(r"[0-9a-fA-F]{16,}|[A-Za-z0-9+/]{16,}={0,2}")


# A path, a URL's path or a route target of lowercase words (`/en/enterprise-server@3.0/auth`,
# `cms/sites/passwords#update`, `/passwords/:id/edit`), a CSS selector (`#add-password`, `.btn-primary`).
_WORD_PATH = re.compile(r"(?:\.{0,2}/|~/)?:?[a-z][a-z0-9]*(?:[-_.@#:]+[a-z0-9]+)*"
                        r"(?:/:?[a-z0-9]+(?:[-_.@#:]+[a-z0-9]+)*)+/?|/[a-z][a-z0-9]*(?:[-_.@#:]+[a-z0-9]+)*/?")
_SELECTOR = re.compile(r"[#.][a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")


def _word_path(value: str) -> bool:
    """A path or a selector made of words: every piece letters, maybe a short number after them; also a
    path of camel-case words (`/users/resetUserPassword`), a repository's path to a commit
    (`examples/commit/16ad89c4…`), a secret store's reference (`op://vault/item/field`), an attribute selector
    (`[id='secret']`)."""
    if _CAMEL_PATH.fullmatch(value) or _COMMIT_PATH.fullmatch(value) or _ATTR_SELECTOR.fullmatch(value):
        return True
    if _ROUTE_TARGET.fullmatch(value) and "_" in value:
        return all(_SLUG_PART.fullmatch(p) for p in re.split(r"[_#]+", value))
    scheme = _STORE_REF.match(value)
    if scheme and _STORE_PATH.fullmatch(value, scheme.end()):
        return all(_SLUG_PART.fullmatch(p) for p in re.split(r"[-_/]+", value[scheme.end():]) if p)
    if not (_WORD_PATH.fullmatch(value) or _SELECTOR.fullmatch(value)):
        return False
    return all(_SLUG_PART.fullmatch(p) for p in re.split(r"[-_.@#:/~]+", value) if p)


_CAMEL_PATH = re.compile(r"(?:/[a-z]+(?:[A-Z][a-z]+)*)+/?")
# a Rails route's target, a controller's and an action's snake-case names (`get "forgot_password" =>
# "password_resets#forgot_password"`); one of them at least of two words, as `cms/sites/passwords#update` has a path
_ROUTE_TARGET = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*#[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_COMMIT_PATH = re.compile(r"[a-z]+(?:/[a-z]+)+/[0-9a-f]{7,40}")
_ATTR_SELECTOR = re.compile(r"""\[[a-z][\w-]*(?:[~|^$*]?=(?P<q>['"]?)[\w-]*(?P=q))?\]""")
# a URL's scheme before a path of words whose first has no dot (no web host): a secret store's item
# (1Password's `op://Private/db/password`, `vault://secret/db`); never a URL's own credentials (_URL_CRED's)
_STORE_REF = re.compile(r"[a-z][a-z0-9+.-]*://")
_STORE_PATH = re.compile(r"[A-Za-z][A-Za-z0-9_-]*(?:/[A-Za-z0-9][A-Za-z0-9_-]*)*/?")
# an IPv6 address (hex groups of up to four, `::` once at most), an IPv4-shaped number, a constant's dotted
# name (`org.apache.tomcat.util.buf.UDecoder.ALLOW_ENCODED_SLASH`)
_IPV6 = re.compile(r"(?=[0-9A-Fa-f:]*:[0-9A-Fa-f:]*:)(?:[0-9A-Fa-f]{1,4}|:)(?::[0-9A-Fa-f]{1,4}|:(?=:|$)){2,8}")
_DOTTED_NUMBER = re.compile(r"\d{1,3}(?:\.\d{1,3}){2,3}")
_DOTTED_WORDS = re.compile(r"[A-Za-z_]+(?:\.[A-Za-z_]+){3,}")
# a property's key of lower-case dotted words, a digit or two after one (`'e2.api.client.secret.key'`), that names a
# secret's word: the key a value is looked up by
_DOTTED_KEY = re.compile(r"[a-z]+[0-9]{0,2}(?:\.[a-z]+[0-9]{0,2}){3,}")
# ... or a message's key of three dotted words or more, one of them the secret's (Spring's `rejectValue(
# "repeatedPassword", "user.password.no-match")`)
_DOTTED_MESSAGE_KEY = re.compile(r"[a-z][a-z0-9]*(?:\.[a-z][a-z0-9-]*){2,}")
# the Fetch API's credentials modes (`credentials: 'include'`, `"omit"`, `same-origin`): an enumerated value
_FETCH_MODES = frozenset(("include", "omit", "same-origin"))


def _address_or_name(value: str) -> bool:
    if _IPV6.fullmatch(value):
        return value.count("::") <= 1 and (value.count(":") >= 7 or "::" in value)
    if _DOTTED_KEY.fullmatch(value) and any(re.sub(r"[0-9]+$", "", w) in _KEY_WORDS for w in value.split(".")):
        return True
    if _DOTTED_MESSAGE_KEY.fullmatch(value) and not _LABEL_WORDS.isdisjoint(value.split(".")):
        return True
    # (a file's path or name, and the local host: what names a place is no secret)
    return bool(_file_name(value) or _LOCAL_HOST.fullmatch(value) or _DOTTED_NUMBER.fullmatch(value) or (
        _DOTTED_WORDS.fullmatch(value)))


_LOCAL_HOST = re.compile(r"localhost(?::[0-9]{1,5})?")  # (`ConnectionStrings: {Redis: localhost}`)


def _fetch_mode(value: str, name: str) -> bool:
    """`credentials: 'include'`: a name whose last word is `credentials` holding one of the Fetch API's modes."""
    return value in _FETCH_MODES and name.strip("\"'`@$[] ").lower().rsplit(".", 1)[-1].endswith("credentials")


_END_ESCAPES = re.compile(r"(?:\\[rn])+$")
# A prompt's or a field's label under a name for one (`password_prompt = "Password: "`, `PASSWORD_LABEL: "Passwort:"`):
# one or two words of letters, the first capitalised as text shown to a person is, then a colon: the text asking for
# the secret, not the secret (two plain words were a phrase already). Under a password's own name the same word stays
# a value (`password = "Password:"`, the twelfth round: a password can be one word), and a word in lower case before
# a colon is as often a credential's first half (`"application:" + appSecret`).
_PROMPT_LABEL = re.compile(r"[A-Z][a-z]+(?: [A-Za-z][a-z]+)?:")
# A form's label or a message bundle's text about a secret (Security Shepherd's `button.resetPassword = Reset My
# Password`, `generic.text.password = Mot de Passe`, `form.password = Password:` under a bundle's dotted key, Android's
# `<string name="loginscreen_password">Password:</string>`): words naming the secret in title case (short joining words
# aside), or a sentence of four words or more from a capital to a full stop; a label closed by a colon or a question
# mark where a bundle's key or a string resource holds it. A passphrase seldom names itself, and not in title case:
# `super secret passphrase`, `my secret pw 42`, `keyboard cat` stay values.
_LABEL_WORDS = frozenset("password passwords passphrase passcode token tokens key keys secret secrets pin credentials"
                         .split())
_LABEL_JOINS = frozenset("a an the my your of to for de le la du des el los der die das".split())
# (more languages' words for a password than names are read in: a label's value only, gogs' `password=Hasło`)
_LABEL_FOREIGN = re.compile(
    "(?i)" + _FOREIGN_PASSWORD + r"|jelsz[oó]|has[lł]o|heslo|parol[aăe]|l[oö]senord|salasana|contrasinal|sandi|"
    r"palavra-?(?:chave|passe)|passord|adgangskode|lozinka|geslo|[sş]ifre")
# ... or only letters of a script beyond Latin written as escapes (a `.properties` bundle's `\u5BC6\u7801`)
_ESCAPED_LETTER = re.compile(r"\\u([0-9A-Fa-f]{4})")
_ESCAPED_TEXT = re.compile(r"(?:\\u[0-9A-Fa-f]{4})+")


def _unescaped(value: str) -> str:
    """A `.properties` value with its `\\uXXXX` escapes read as the letters they stand for."""
    return _ESCAPED_LETTER.sub(lambda m: chr(int(m.group(1), 16)), value)


def _ui_text(value: str, label: bool = False) -> bool:
    """A message about a secret, or escaped letters of another script: text, not the secret. `label`: where a
    message bundle's key or a string resource names the value, a label closed by a colon (`Password:`) is one too;
    elsewhere it stays a value (`password = "Password:"`, the twelfth and thirty-seventh rounds' policy)."""
    if _ESCAPED_TEXT.fullmatch(value):
        return all(c.isalpha() and ord(c) >= 0x370 for c in _unescaped(value))
    if "\\u" in value:
        value = _unescaped(value)  # a bundle's `Contrase\u00F1a`
    if _other_script(value):
        return True
    parts = value.split()
    words = [p.strip(".,:;!?()'\"") for p in parts]
    if not parts or len(parts) > 40 or not (
            _LABEL_WORDS.intersection(x.lower() for w in words for x in w.split("-"))
            or _LABEL_FOREIGN.search("".join(words))):
        return False
    if len(parts) >= 4 and value[0].isupper() and value[-1] in ".!?" and _is_phrase(value):
        return True  # a sentence (`Password change request success.`)
    # (words of letters; a hyphen inside one joins two: `Re-inserisci la password`, `Palavra-chave`)
    if len(parts) > 6 or not all(w.replace("-", "").isalpha() and w[0] != "-" != w[-1] for w in words if w) or (
            not all(words)):
        return False
    if label and value[-1] in ":?":
        return True
    if len(parts) == 1:
        # another language's word for a password, capitalised, where a bundle's dotted key or a string resource
        # holds it (WebGoat's `accounts.table.password=Contraseña`); elsewhere one word under a password's name stays
        # a value (`"password": "Passord"`, the eighteenth round: a password can be one word)
        return label and words[0][0].isupper() and (words[0][1:].islower() and (
            _LABEL_FOREIGN.fullmatch(words[0]) is not None) or _label_compound(words[0]))
    # title case (`Reset My Password`), or sentence case: a capital, then lower-case words (gogs' `New password`,
    # `Forgot password?`, `Reset password code lives`)
    return words[0][0].isupper() and (all(w[0].isupper() or w in _LABEL_JOINS for w in words) or all(
        w.islower() for w in words[1:]))


def _label_compound(word: str) -> bool:
    """Another language's word for the secret as one word of a label (Bitwarden's strings: `Huvudlösenord`,
    `Master-Passwort`, `API-Schlüssel`, `Lösenordshistorik`): a letter beyond ASCII or a capitalised compound joined
    by `-`, not generated."""
    parts = word.split("-")
    return not looks_random(word.replace("-", "")) and (not word.isascii() or (
        len(parts) >= 2 and all(len(p) >= 2 and p.isalpha() for p in parts) and (
            parts[0].isupper() or parts[0].istitle()) and any(not p.isupper() for p in parts[1:])))


# Letters of a script beyond Latin (Greek, Cyrillic, Arabic, CJK, …): a translation's text (gogs' `password=密码`,
# `Пароль`, `パスワード`), at least two of them and most of a value's letters, no generated run of ASCII among them.
# A password is typed on a keyboard a service accepts, and nearly always in ASCII: GitHub's secret-scanning spec, in
# leaktk's fake-leaks, lists `secret='Contrase\u00f1a'` among its values that are no secret.
_ASCII_RUN = re.compile(r"[A-Za-z0-9+/=_-]{12,}")
_GLUED_DIGIT = re.compile(r"[^\W\d_]\d|\d[^\W\d_]")
_ASCII_WORD_DIGITS = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z0-9]*[A-Za-z])(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{6,}")


def _other_script(value: str) -> bool:
    """Most of the value's letters, two or more, of a script beyond Latin: text shown to a person."""
    if value.isascii():
        return False
    other = latin = 0
    for c in value:
        if c.isalpha():
            if ord(c) >= 0x370:
                other += 1
            else:
                latin += 1
    # (one short word with a digit glued to its letters is a password in that script, `Пароль2024`; a phrase or a
    # sentence may count, `2단계 인증 토큰`, `输入的令牌需要有6位数字。`; an ASCII word of letters and digits inside is a
    # value quoted in the text, Juice Shop's `…パスワードを<i>slurmCl4ssic</i>に…`)
    return other >= 2 and other > latin and not any(looks_random(r) for r in _ASCII_RUN.findall(value)) and (
        " " in value.strip() or other >= 8 or not _GLUED_DIGIT.search(value)) and not _ASCII_WORD_DIGITS.search(value)


# A name's last word saying its value is what kind the secret is, what checks or names it, or how long it lives
# (casdoor's `passwordType == "bcrypt"`, dex's `PasswordConnector = "local"`, gRPC's `Dex_CreatePassword_FullMethodName
# = "/api.Dex/CreatePassword"`, passbolt's `..._SECRET_TOKEN_COST`, Keycloak's `accessTokenLifespan`): a value that
# looks generated stays a secret (round 45's `trustTokenOperationType = "Zq8v…"`). Not a template's: AWS'
# `SecretStringTemplate: '{"username":"admin"}'` is kics' secret.
# (an id's prefix or suffix, letters and digits with a separator maybe last: HashiCorp Boundary's
# `PasswordAuthMethodPrefix = "ampw"`; a generated one, round 21's `_TOKEN_PREFIX = "Zq8v…"`, or a password's own
# first letters, `$PasswordPrefix = "p@ssw0rd00!"`, stays redacted)
_AFFIX = re.compile(r"[A-Za-z0-9]{1,16}[_.:/-]?")
_ABOUT_WORDS = frozenset("type types kind connector connectors lifespan limit limits cost name "
                         # (how it is delivered or hashed, when it expires: node-oidc-provider's
                         # `backchannelTokenDeliveryMode === 'ping'`, `client_secret_expires_at`, django-oauth-toolkit's
                         # `CLIENT_SECRET_HASHER: "default"`)
                         "mode modes hasher at expires expiry expiration".split())
_PROMPT_NAME = re.compile(r"(?i)(?:prompt|label|caption|hint|question)[\"'`]?$")


def is_benign_value(value: str, name: str = "") -> bool:
    """A value no secret-shaped name makes secret: a reference, a placeholder, a
    phrase of words, an identifier naming a key, a public key, a hash (`name`:
    what holds the value; `string[…]`, an Android string resource's, may hold a label)."""
    # (a line's end written as an escape is no part of what the value is: `"[secrets]\\n"`, a section's header)
    v = _END_ESCAPES.sub("", value.strip()) or value.strip()
    return bool(_REFERENCE_OR_PLACEHOLDER.match(v)) or _is_phrase(v) or _names_a_key(v, name) or bool(
        _PUBLIC_OR_HASH.match(v)) or _PLACEHOLDER_RUN.search(v) is not None or _filler(v) or _word_path(v) or (
        _address_or_name(v)) or _ONE_ESCAPE.fullmatch(v) is not None or _TYPE_NAME.fullmatch(v) is not None or (
        _CHAR_CLASS_RUN.fullmatch(v) is not None) or _DOC_TYPE.fullmatch(v) is not None or (
        _STYLE_SPEC.fullmatch(v) is not None) or _UI_NAME.fullmatch(v) is not None or (
        _REQUIREMENT_PIN.fullmatch(v) is not None) or _RESOURCE_PATH.fullmatch(v) is not None or (
        _ANDROID_RESOURCE.fullmatch(v) is not None) or _regex_only(v) or _public_pem(v) or (
        _X509_B64.match(v) is not None) or _ENTRY_POINT.fullmatch(v) is not None or (
        v in _WELL_KNOWN_DEV_VALUES) or _ui_text(v, label=name.startswith("string[")) or v in _RULE_WORDS or (
        _PHP_CLASS.fullmatch(v) is not None) or _java_class(v) or _lookup_spec(v) or _escaped_phrase(v) or (
        _XSD_TYPE.fullmatch(v) is not None) or _indexed_name(v) or (
        _PUBLIC_FORM.fullmatch(v) is not None) or _host_url(v) or _one_part_conn(v) or (
        _LETTER_RUNS.fullmatch(v) is not None) or _PUNCT_ONLY.fullmatch(v) is not None or (
        _SECRET_NAME_LIST.fullmatch(v) is not None and _NAMED_KIND.search(v) is not None and all(
            _NAME_LIST_WORD.fullmatch(w) for w in re.split(r"[-,\s]+", v))) or (
        _INLINE_MARKUP.search(v) is not None and _marked_up_text(v)) or (
        ";" in v and "=" in v and (_template_conn(v) or _credential_free_conn(v))) or (
        _HOLES_ONLY.fullmatch(v) is not None) or _VERSION_RANGE.fullmatch(v) is not None or (
        _DOTTED_LOWER.fullmatch(v) is not None and (not _PASSWORD_WORD.search(name) or _PASSWORD_WORD.search(v))) or (
        bool(name) and (
            (any(form.fullmatch(v) for form in _PUBLISHED_FORMS) and _PASSWORD_WORD.search(name) is None) or
            (_HEADER_NAME.fullmatch(v) is not None and _HEADER_WORD.search(name) is not None) or
            _names_itself(v, name) or
            (_PROMPT_LABEL.fullmatch(v) is not None and _PROMPT_NAME.search(name) is not None) or
            _few_word_chars(v, name) or
            _holds_own_name(v, name) or _other_reference(v, name) or _parser_token(v, name) or _fetch_mode(v, name)
            or (_HASH_VALUE.fullmatch(v) is not None and _hash_name(name))
            or (_ETH_ADDRESS.fullmatch(v) is not None and _last_word(name) in ("address", "addr"))
            or (_SLOT_NAME.fullmatch(v) is not None and _SLOT_KEY_NAME.search(name) is not None)
            or (v.strip("\"'").lower() in _FLAG_WORDS and _SWITCH_NAME.search(name) is not None)
            or (_last_word(name) in _ABOUT_WORDS and not looks_random(v))
            or (_last_word(name) in ("prefix", "suffix") and _AFFIX.fullmatch(v) is not None and not looks_random(v)
                and _ASCII_WORD_DIGITS.search(v) is None)
            or (_last_word(name) == "id" and _id_slug(v))
            or _words_under_weak_name(v, name) or _label_mapped_to_id(v, name) or _provider_stub(v, name)
            or _sample_words(v, name) or _extends_name(v, name)
            or (_CFN_SERVICE_TOKEN.fullmatch(name) is not None and not looks_random(v))))


# A Java class by its package (Shiro's `"credentialsMatcher", "org.apache.shiro.…Sha256CredentialsMatcher"`), an
# XML Schema type (a SOAP service's `'password' => 'xsd:string'`), an expression indexing a name (Shiro's filter
# chain, `token = 'roles["guest, admin"]'`): what a value is or where it comes from, never the value.
_JAVA_CLASS = re.compile(r"(?:[a-z][a-z0-9_]*\.){2,}[A-Z][a-z]+(?:[0-9]+|[A-Z][a-z]+)*(?:\$[A-Z][A-Za-z0-9_]*)?"
                         r"(?:\.[a-z][A-Za-z0-9_]*)?")
_XSD_TYPE = re.compile(r"xsd?:[A-Za-z]+")
_INDEXED_NAME = re.compile(r"[A-Za-z_]\w*\[(?P<index>[^\[\]\n]*)\]")


def _java_class(value: str) -> bool:
    """A package's dotted words, then a class's name of capitalised words, digits only after a word (`Sha256…`), that
    is no generated string (`dp.pt.GnUaQXtT9Fi…`, a Doppler token, is one; `hunter.two.Wint3rIsHere`, a password)."""
    return _JAVA_CLASS.fullmatch(value) is not None and not any(looks_random(p) for p in value.split(".")[-2:])


def _indexed_name(value: str) -> bool:
    """A name indexed by words (`roles["guest, admin"]`); an encrypted value's wrapper (`ENC[RSA,tUf83…]`) holds a
    generated string."""
    m = _INDEXED_NAME.fullmatch(value)
    return m is not None and not any(looks_random(part) for part in re.split(r"[\s,\"']+", m.group("index")))


# Where a token is looked up, its source and name (echo's `TokenLookup: "cookie:sessionIDsnake"`,
# `"header:Authorization"`); a generated name is no lookup's.
_LOOKUP_SPEC = re.compile(r"(?:header|query|cookie|param|form):(?P<name>[A-Za-z][\w-]*)")


def _lookup_spec(value: str) -> bool:
    m = _LOOKUP_SPEC.fullmatch(value)
    return m is not None and not looks_random(m.group("name"))


def _escaped_phrase(value: str) -> bool:
    """A bundle's message read with its escaped letters (Struts' `Formularz zosta\\u0142 ju\\u017C…`)."""
    return "\\u" in value and _is_phrase(_unescaped(value))


# A form validator's rule (jQuery Validate's `rules: {password: "required"}`): what the field must be, not its value.
_RULE_WORDS = frozenset(("required", "optional", "nullable", "confirmed"))
# A PHP class by its namespace (Symfony's `<service id="form.type.password" class="…\\Core\\Type\\PasswordType">`).
_PHP_CLASS = re.compile(r"\\?[A-Z][A-Za-z0-9]*(?:\\{1,2}[A-Z][A-Za-z0-9]*)+")
# A moment in ISO 8601 (KeePass' `<MasterKeyChanged>2012-04-05T17:09:34Z</MasterKeyChanged>`): when, under no
# password's or secret's name.
_ISO_TIME = re.compile(r"[12][0-9]{3}-[01][0-9]-[0-3][0-9](?:[T ][0-2][0-9]:[0-5][0-9](?::[0-5][0-9](?:\.[0-9]{1,9})?)?"
                       r"(?:Z|[+-][0-2][0-9]:?[0-5][0-9])?)?")
# A length of time (`access-token-time-to-live: 10m`, `1h30m`, `500ms`): a setting's duration, under no password's name.
_DURATION = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:ns|us|ms|s|m|h|d|w)(?:[0-9]+(?:ns|us|ms|s|m|h))*"
                       # (in words: passbolt's `env('PASSBOLT_AUTH_JWT_REFRESH_TOKEN', '1 month')`, a token's lifetime)
                       r"|[0-9]+[ \t]?(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)")
# Runs of one letter between dots or dashes (`"access_token": "XXXX.YYYY.ZZZZ"`, a JWT's parts in a doc): a shape.
# (or one run alone, three letters or more: oauth2-proxy's docs' `client_secret = "YYYYY"`, `cookie_secret = "ZZZ"`)
_LETTER_RUNS = re.compile(r"([A-Za-z])\1{3,}(?:[.-]([A-Za-z])\2{3,})+|([A-Za-z])\3{2,}")
# A kebab-case name of words, a short number after one (`wrongsecret-1`) under a name whose last word is `id`
# (Google Secret Manager's `secret_id`): which secret, not its value. Vault's generated `secret_id` (a UUID) stays.
_KEBAB_SLUG = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")


def _id_slug(value: str) -> bool:
    return _KEBAB_SLUG.fullmatch(value) is not None and all(_SLUG_PART.fullmatch(p) for p in value.split("-")) and (
        not looks_random(value))


# A URL of hosts and ports alone, no user, no path, no query (`couchbase://192.168.1.123`, `redis://cache:6379`,
# `mongodb://a:27017,b:27018`): where a service is, under a connection string's name no secret.
_HOST_URL = re.compile(r"[a-z][a-z0-9+.-]*://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:,[A-Za-z0-9.-]+(?::[0-9]{1,5})?)*"
                       # (and a path of words: an OAuth provider's token endpoint, `token:
                       # "https://graph.facebook.com/oauth/access_token"`; no query, no user, each part not generated)
                       r"(?:/[A-Za-z0-9._~-]*)*")
# A connection string of one part naming a file or the local host (`Data Source=/path/to/db/bitwarden.db`, SQLite's).
_ONE_PART_CONN = re.compile(r"(?i)(?:data ?source|filename|server|host)[ \t]*=[ \t]*(?P<where>[^;=\s]+);?")


def _host_url(value: str) -> bool:
    return _HOST_URL.fullmatch(value) is not None and not any(
        looks_random(p, 8) for p in re.split(r"[.:/,]+", value) if p)


def _one_part_conn(value: str) -> bool:
    m = _ONE_PART_CONN.fullmatch(value)
    return m is not None and (_file_name(m.group("where")) or _LOCAL_HOST.fullmatch(m.group("where")) is not None)


# Forms published as identifiers, never secrets: an SBOM's SPDX ids (`SPDXRef-Package-…-2c7953c2c68ec3bc`,
# `LicenseRef-<sha256>`), Cloudflare's ray id (`CF-RAY: 93f47072dde6f88d-IAD`), a JSON pointer (`$ref:
# "#/$defs/passwordHistory"`).
_PUBLIC_FORM = re.compile(r"(?:SPDXRef|LicenseRef|DocumentRef)-[\w.+-]+|[0-9a-f]{16}-[A-Z]{3}|#/[\w$./~-]*")
# Lower-case words joined by dots (`token: "comment.doc"`, an editor grammar's scope; `"spring.datasource.password"`, a
# property's key): a name. Under a password's or a secret's name only when it names one (`hunter.two` is a password).
_DOTTED_LOWER = re.compile(r"[a-z]{2,}(?:\.[a-z]{2,})+")
# An Ethereum address under a name ending in "address" (`BeeTokenAddress = '0x3643…6E13'`: 40 hex digits, public; a
# private key has 64, and an API's token of the same form stays one: `poly_address_api_token = "0x4Cb0…"`).
_ETH_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
# A file's path from a root, any extension of letters (`api.auth.Password: /foo/bar/Password.js`), and a file's name
# or path by a known extension (`setup_secrets.ps1`, Compose's `file: ca.crt`, `/Media/MyVideo-720p.mp4`): where a
# value is read from, not the value (a key file's name is no key).
_FILE_PATH = re.compile(r"(?:\.{0,2}/|~/)(?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_-]+\.[A-Za-z]{1,5}")
_FILE_NAME = re.compile(
    r"(?:~/|\.{0,2}/)?(?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.(?:ps1|psm1|sh|bash|bat|cmd|py|rb|js|ts|json|ya?ml|toml|ini|"
    r"cfg|conf|env|txt|md|xml|csv|log|sql|html?|crt|cer|pem|key|p12|pfx|jks|der|csr|pub|keystore|truststore|"
    r"mp4|m4a|m4v|mkv|webm|avi|mov|mp3|aac|flac|ogg|wav|srt|vtt|png|jpe?g|gif|svg|pdf|zip|gz|tgz|tar|jar|war|dll|"
    r"exe|so|dylib)")


def _file_name(value: str) -> bool:
    """A file's path or name (_FILE_PATH, _FILE_NAME), no piece of it generated (`/x/Zq8vN3xL0pR7tY2w.js` under a
    password's name is a secret in a path, as the sixteenth round decided)."""
    if _FILE_PATH.fullmatch(value) and not any(looks_random(p, 8) for p in re.split(r"[/.]", value) if p):
        return True
    return _FILE_NAME.fullmatch(value) is not None and not any(
        looks_random(piece, 8) for piece in re.split(r"[/._-]+", value))


# A resource's location (Spring's `classpath:test-key.pem`, `file:./keys/app.p12`): where a key is read from.
_RESOURCE_PATH = re.compile(r"(?:classpath\*?|file|resource):(?:\.{0,2}/)*(?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]{1,5}")
# An Android resource's reference (InsecureShop's `app:passwordToggleTint="@android:color/black"`, `@string/…`,
# `?attr/…`, `@+id/…`): where the value is kept, never the value.
_ANDROID_RESOURCE = re.compile(
    r"[@?]\+?(?:[a-z][\w.]*:)?(?:anim|animator|array|attr|bool|color|dimen|drawable|font|fraction|id|integer|"
    r"interpolator|layout|menu|mipmap|navigation|plurals|raw|string|style|styleable|transition|xml)/[A-Za-z_][\w.]*")
# A regular expression's syntax and nothing else (DVGA's `re.sub(r'(?<=password:")(.*)(?=")', …)`: the quote inside
# the pattern closes a "value" of `)(.*)(?=`): no letter or digit, a wildcard or a group's lookaround in it.
_REGEX_PUNCT = re.compile(r"[()\[\]{}.*+?=<>!|^$\\,:\s-]+")


# Public key material by its form: PEM blocks of certificates and public keys only (traefik's docs put a CA in a
# Kubernetes Secret's `ca: |-`), and an X.509 certificate's DER in base64 (Android's `font_certs.xml`: `MIIEqDCCA5Cg
# AwIBAgI…`, a SEQUENCE, then the version's [0] INTEGER 2; a private key's `MIIEvQIBADAN…` is none).
_PEM_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----")
_PUBLIC_PEM_KINDS = frozenset(("CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CRL", "CERTIFICATE REQUEST",
                               "NEW CERTIFICATE REQUEST", "PUBLIC KEY", "RSA PUBLIC KEY", "PGP PUBLIC KEY BLOCK"))
_X509_B64 = re.compile(r"MII[A-Za-z0-9+/]{3}CC[A-Za-z0-9+/]{4}AwIBAgI[A-Za-z0-9+/=\s]*$")
# A Python entry point, a module's dotted path and an attribute (`jupyterhub.authenticators.shared:SharedPassword
# Authenticator` under `shared-password` in pyproject.toml's entry points): letters only after the colon.
# (two dots in the module's path, or a class's name of two words or more, or a function's with `_`: `db.local:Secret`,
# a user and a password, is none)
_ENTRY_POINT = re.compile(r"[a-z_][a-z0-9_]*(?:(?:\.[a-z_][a-z0-9_]*){2,}:[A-Za-z_]{4,}|\.[a-z_][a-z0-9_]*:"
                          r"(?:[A-Z][a-z]+(?:[A-Z][a-z]+)+|[a-z]+(?:_[a-z]+)+))")


def _public_pem(value: str) -> bool:
    if value.startswith("LS0tLS1CRUdJTi") and len(value) < 65536:  # the same in base64 (a Secret's `ca.crt: LS0t…`)
        try:
            value = base64.b64decode(value, validate=True).decode("ascii")
        except (ValueError, UnicodeDecodeError):
            return False
    if not value.startswith("-----BEGIN ") or "PRIVATE" in value:
        return False
    kinds = _PEM_BEGIN.findall(value)
    return bool(kinds) and all(k in _PUBLIC_PEM_KINDS for k in kinds)


def _regex_only(value: str) -> bool:
    return (".*" in value or "(?" in value) and _REGEX_PUNCT.fullmatch(value) is not None
# Values published as no secret: Azure Storage's emulator (`UseDevelopmentStorage=true`, and Azurite's documented
# account key for `devstoreaccount1`, the same on every machine).
_WELL_KNOWN_DEV_VALUES = frozenset((
    "UseDevelopmentStorage=true",
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="))
# A package pinned to a version (a test matrix's `py3.9-langchain-notiktoken-v0.1.20: langchain==0.1.20`, tox's
# factor names holding `tiktoken`; `requests>=2.31,<3`, `numpy~=1.26`): a requirement, never a secret.
# (a dotted version: `pass==1234` may be a password)
_REQUIREMENT_PIN = re.compile(
    r"[A-Za-z][\w.-]*(?:\[[\w,-]+\])?[ \t]*(?:==|>=|<=|~=|!=|===)[ \t]*[0-9]+(?:\.(?:[0-9]+|\*))+[\w.*+!-]*"
    r"(?:[ \t]*,[ \t]*(?:==|>=|<=|~=|!=|<|>)[ \t]*[0-9]+(?:\.(?:[0-9]+|\*))+[\w.*+!-]*)*")
# CloudFormation's custom resource property `ServiceToken`: the ARN of the function or topic that serves the resource
# (`ServiceToken: !GetAtt Fn.Arn`, `ServiceToken: anArn`), no token; a generated value under it is still one.
_CFN_SERVICE_TOKEN = re.compile(r"[\"']?ServiceToken[\"']?")


# A form's widget class (a minified settings form's `password:"PasswordWidget"`): capitalised words, one of them a
# secret's, ending in a UI element's word.
_UI_NAME = re.compile(r"(?:[A-Z][a-z]+)*(?:Password|Secret|Token|Key)(?:[A-Z][a-z]+)*"
                      r"(?:Widget|Field|Input|Form|Dialog|Component|View|Label|Prompt)")
# An HTTP header's name, capitalised words joined by `-` (Go's `const contentTypeToken string = "Content-Type"`, a
# constant naming a header, under a token's or a key's name): no token; under a password's name it may be a passphrase.
_HEADER_NAME = re.compile(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+")
# (under a name saying it holds a header's, any header's name: casdoor's `headerAllowCredentials =
# "Access-Control-Allow-Credentials"`)
_HEADER_WORD = re.compile(r"(?i)header")


# A JOSE algorithm's registered name (RFC 7518: an OpenID client's `id_token_signed_response_alg: 'RS256'`,
# `id_token_encrypted_response_enc: 'A128CBC-HS256'`, `'ECDH-ES+A128KW'`): a published identifier, under no password's
# or secret's name.
_JOSE_ALG = re.compile(r"[HREP]S(?:256|384|512)|ES256K|EdDSA|Ed25519|Ed448|RSA1_5|RSA-OAEP(?:-(?:256|384|512))?|"
                       r"A(?:128|192|256)(?:KW|GCMKW|GCM|CBC-HS(?:256|384|512))|ECDH-ES(?:\+A(?:128|192|256)KW)?|"
                       r"PBES2-HS(?:256|384|512)\+A(?:128|192|256)KW")


# A media type's structured suffix (RFC 9068's access token type `at+jwt`, OpenIddict's `oi_reft+jwt`): a format's
# name, under no password's or secret's name.
_MEDIA_SUFFIX = re.compile(r"[a-z][a-z0-9._-]{0,40}\+(?:jwt|json|xml|cbor)")
# Punctuation standing for a value (`OIDC_CLIENT_SECRET=???`, `--client-secret=...`).
_PUNCT_ONLY = re.compile(r"[?.\u2026]{2,}")
# Text with HTML's inline markup (FreshRSS' `'password_form' => 'Passwort<br /><small>(für die Anmeldemethode per
# Webformular)</small>'`): a label shown on a page, under any name.
_INLINE_MARKUP = re.compile(r"<(?:br|small|b|i|em|strong|span|code|kbd|sup|sub)[ \t]*/?>|</(?:small|b|i|em|strong|span|"
                            r"code|kbd|sup|sub)>")


def _marked_up_text(value: str) -> bool:
    """Words around the markup, two or more, none generated nor of letters and digits (a password quoted in a hint,
    round 73's `パスワードを<i>slurmCl4ssic</i>に変更します`)."""
    text = re.sub(r"<[^<>]*>", " ", value)
    return len(re.findall(r"[^\W\d_]{2,}", text)) >= 2 and _ASCII_WORD_DIGITS.search(text) is None and not any(
        looks_random(w) for w in text.split())


# Secrets' names in capitals joined by `-`, one or a list (Bitwarden's workflows: `secrets: "UPLOAD-KEYSTORE-PASSWORD,
# PLAY-KEYSTORE-PASSWORD"`, an Azure Key Vault's names), one of them naming a secret's kind: names, not values.
_SECRET_NAME_LIST = re.compile(r"(?:[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)(?:,[ \t]*[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)*")
_NAME_LIST_WORD = re.compile(r"[A-Z]{1,20}[0-9]{0,2}")
_NAMED_KIND = re.compile(r"(?<![A-Z])(?:PASSWORD|TOKEN|KEY|SECRET|WEBHOOK|ID|EMAIL)(?![A-Z])")


def _names_itself(value: str, name: str) -> bool:
    """A value ending in its own name after a package's path (Go's context key, casdoor's `ctxCredentials =
    "github.com/jcmturner/gokrb5/v8/ctxCredentials"`): a key naming itself, no secret."""
    own = name.strip("\"'`[] ")
    return len(own) >= 4 and "/" in value and value.rsplit("/", 1)[1] == own


# An id's field name in camel case (a minified query's `{token:"snapshotId"}`), under a name with no password's word.
_ID_NAME = re.compile(r"[a-z]{3,}(?:[A-Z][a-z]+)*(?:Id|ID)")
# A regex of character classes with their counts (`token = r"[-!#$%&'*+.^_`|~0-9a-zA-Z]+"`, HTTP's token grammar):
# a pattern that matches tokens, none itself.
_CHAR_CLASS_RUN = re.compile(r"\^?(?:\[[^\]\n]+\](?:[+*?]|\{\d+(?:,\d*)?\})|\\[dwsSWD][+*?]?)+\$?")
# A style's words and colours (pygments' `Token.Comment: "italic #A3AAB2"`, `"bold bg:#ffffff"`), no secret: one
# style word at least, each other word a colour.
_STYLE_WORD = r"(?:no)?(?:bold|italic|underline|inherit)|(?:bg|border):(?:#[0-9a-fA-F]{3,6}|ansi\w+)?"
_STYLE_SPEC = re.compile(
    rf"(?:(?:#[0-9a-fA-F]{{3,6}}|ansi\w+)\s+)*(?:{_STYLE_WORD})(?:\s+(?:{_STYLE_WORD}|#[0-9a-fA-F]{{3,6}}|ansi\w+))*")
# A docstring's field and type (`token: str:`, `password (str):`): a type's name and a colon.
_DOC_TYPE = re.compile(r"\(?(?:str|string|bytes|int|bool|dict|list|optional\[str\])\)?:", re.I)


def _provider_stub(value: str, name: str) -> bool:
    """A provider's prefix and a body too short for any of its forms, or words, under a token's or a key's name
    (`GITHUB_TOKEN=ghp_abc123`, `SENDGRID_KEY=SG.abc.def`, `SLACK_TOKEN=xoxb-123-456-abc`): the form's illustration,
    no token (a provider's token holds twenty characters and more past its prefix). A password's or a secret's name
    keeps even a short value (the twelfth round's policy)."""
    m = _STUB_PREFIX.match(value)
    return m is not None and (len(re.findall(r"[A-Za-z0-9]", value[m.end():])) <= 10 or _STUB_WORDS_REST.fullmatch(
        value, m.end()) is not None) and not _PASSWORD_WORD.search(name)


# ... or lower-case words after the prefix (`api_key="sk_test_iter_forwards_options"`): a test's name for the key
_STUB_WORDS_REST = re.compile(r"[a-z]{2,}(?:_[a-z]{2,})+")


# Two plain words or more in one case, maybe a short number last, the first saying it is a test's, a default's or a
# sample's (`test-key-001`, `TEST-KEY-123`, `default-public-key-123`, `public-key-for-test`), under a key's or a
# token's name: what a test or a fallback writes where a key goes. A password's or a secret's name keeps it (the
# twelfth round's policy), and so does a value calling itself a secret (`default_constructor_secret_kotlin`), one
# word alone (`API_KEY=test`: scanners' corpora disagree on it), such a word later (`ruby-default-tok-9`) and words
# with no such word (`api-key-xyz-789-abc`).
_SAMPLE_WORDS_VALUE = re.compile(r"[a-z]{2,}(?:[-_][a-z]{2,})+(?:[-_][0-9]{1,4})?|[A-Z]{2,}(?:[-_][A-Z]{2,})+"
                                 r"(?:[-_][0-9]{1,4})?")
_SAMPLE_WORDS = frozenset("test testing default public sample example demo dummy fake mock".split())


def _sample_words(value: str, name: str) -> bool:
    return _SAMPLE_WORDS_VALUE.fullmatch(value) is not None and (
        re.match(r"[a-z]+", value.lower())[0] in _SAMPLE_WORDS) and not _PASSWORD_WORD.search(name) and (
        not _PASSWORD_WORD.search(value))


def _few_word_chars(value: str, name: str) -> bool:
    """At most four letters or digits among signs under a token's or a key's name (`split_token = ".."`,
    `DONE_TOKEN = "done."`, `_TOKEN_PREFIX = "v1."`, `unk_token="-1"`): a separator, a marker or a number, no
    token. A password's or a secret's name keeps even a short value (`password = "ab1!"`)."""
    return len(value) <= 8 and len(re.findall(r"[A-Za-z0-9]", value)) <= 4 and (
        re.search(r"[^A-Za-z0-9]", value) is not None) and not _PASSWORD_WORD.search(name)


# One character written as an escape (`"\u3299"`, `"\U000f0000"`, `"\x1b"`): a glyph's or a control token's code
# point, never a secret (a key written in escapes takes many: `"\x8f\x1a…"` stays a value).
# (also CSS's: a backslash and one to six hex digits, an icon font's code point: `@fa-var-user-secret: "\f21b";`)
_ONE_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[0-9a-fA-F]{1,6})")
# A type's name where a schema or an annotation gives a field's type (playwright's protocol `"password": "string?"`,
# `"credentials": "boolean?"`; a string annotation `_pad_token_tensor: "torch.Tensor | None"`: dotted names joined by
# ` | `), not its value.
_TYPE_NAME = re.compile(
    r"(?:string|boolean|number|integer|object|array|bool|int|str|float|double|function|symbol|bigint)(?:\?|\[\])?"
    r"|[A-Za-z_][\w.]*(?:\[[\w., ]*\])?(?: \| [A-Za-z_][\w.]*(?:\[[\w., ]*\])?)+"
    # Python's annotation as a string, a forward reference (`secret_key: "Optional[str]" = None`, `token: "Any"`)
    r"|(?:typing\.)?(?:Any|(?:Optional|Union|List|Dict|Tuple|Set|FrozenSet|Sequence|Mapping|Iterable|Iterator|Callable"
    r"|Type|Literal|Annotated|ClassVar|Final|list|dict|tuple|set|type)\[[\w., \[\]|]*\])")
# The name's own words in its value (`"tiktoken": "tiktoken"`, `"pooling_mode_lasttoken": "lasttoken"`,
# `"refresh_token": "hf_oauth__refresh_token"`, `"TokenClassificationPipeline": "….token_classification"`): the
# word holding "key" or "token" with its neighbour (or glued in a longer word), eight letters or more, found in a
# value that does not look generated (words of two letters or more, numbers of one or two digits): a name or a
# label mapped to itself. A password's or a secret's name keeps its value (`dbpassword = "dbpassword1"` is a weak
# password), and so does a fixture's token that names its kind (`NPM_TOKEN=npm_FakeNpmToken0041Xy9`).
_OWN_NAME_SEP = re.compile(r"[\W_]+")


# A name's last word and one word saying what a variable holds of it (`password: passwordHash`, `secret:
# secretValue`): a variable named for the field it fills, code (a JavaScript object's last member, with no comma
# after it). Any other tail is a value (`clientSecret: "secretHardcodedString"`, bearer's planted one).
_CAMEL_TAIL = re.compile(r"Hash|Hashed|Digest|Value|Input|Field|Param|Arg|Var|Confirm|Confirmation|Ref|Text|Str|Bytes|"
                         r"Buffer|Encrypted|Plain|Raw|Salt|Length|Hint")


def _extends_name(value: str, name: str) -> bool:
    last = _last_word(name)
    return len(last) >= 3 and value[:len(last)] == last and _CAMEL_TAIL.fullmatch(value, len(last)) is not None


def _holds_own_name(value: str, name: str) -> bool:
    if _PASSWORD_WORD.search(name) or not re.fullmatch(r"[\w.:/ -]+", value) or looks_random(value):
        return False
    if not all(len(w) >= 2 if w.isalpha() else len(w) <= 2 for w in _IDENT_WORDS.findall(value)):
        return False  # a letter alone or a number of three digits or more: a generated part (`npm_FakeNpmToken0041Xy9`)
    words = [w.lower() for w in _IDENT_WORDS.findall(name)]
    compact = _OWN_NAME_SEP.sub("", value).lower()
    for k, w in enumerate(words):
        if "key" in w or "token" in w:
            whole = ([w] if w not in ("key", "keys", "token", "tokens") else []) + (
                [words[k - 1] + w] if k else []) + ([w + words[k + 1]] if k + 1 < len(words) else [])
            if any(len(c) >= 8 and c in compact for c in whole):
                return True
    return False


# A kebab-case or camel-case identifier of plain words (`my-product`, `iamRoleStatements`) under a name with "key"
# or "token" as one word of a longer name that says no more (_name_tier 1: Terraform's EFS `creation_token =
# "my-product"`, an idempotency token; `IAM_ROLE_STATEMENTS_TOKEN = 'iamRoleStatements'`, a constant naming a
# field): a name, not a generated key. A strong name (`api_key`, `auth_token`) or a password's keeps its value.
_WORDS_ID = re.compile(r"[a-z]{2,}(?:-[a-z]{2,})+|[a-z]{2,}(?:[A-Z][a-z]{2,})+")


def _words_under_weak_name(value: str, name: str) -> bool:
    return _WORDS_ID.fullmatch(value) is not None and _PASSWORD_WORD.search(name) is None and (
        _name_tier(name) == 1) and not looks_random(value)


# A label of several words (a quoted key with a blank: `'Slack Token'`, `"Square OAuth Secret"`) mapped to an
# upper-case id (`'CKV_SECRET_14'`: letters, `_`-joined words, maybe a number last): a table of kinds, not a value.
_UPPER_ID = re.compile(r"[A-Z]{2,}(?:_[A-Z]{2,})+(?:_[0-9]{1,4})?")


def _label_mapped_to_id(value: str, name: str) -> bool:
    label = name.strip("\"'`[] ")
    return " " in label and _UPPER_ID.fullmatch(value) is not None and not looks_random(value)


# A CSS hex colour (`#d8dee9`, `#fff`, `#11223344`): a style's or a theme's token (pygments' `Token: "#d8dee9"`, a
# design token), never a key or a token of a service's; under a password's or a secret's name it stays a value.
_HEX_COLOR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_PASSWORD_WORD = re.compile(r"(?i)passw|passphrase|pwd|pword|secret|credential|creds")
# Forms that say what a value is, each kept under any name but a password's or a secret's: an id's field name, an
# HTTP header's name, a JOSE algorithm, a moment, a media type's suffix, a length of time, a CSS colour.
_PUBLISHED_FORMS = (_ID_NAME, _HEADER_NAME, _JOSE_ALG, _ISO_TIME, _MEDIA_SUFFIX, _DURATION, _HEX_COLOR)


# A storage's or a session's key named in lower-case words (`storage_key = "session_storage"`, Django's `SESSION_KEY =
# "_auth_user_id"`): the slot a value is kept under, not an Azure storage account's key (base64) or a session's secret.
_SLOT_KEY_NAME = re.compile(r"(?i)(?:storage|session|cache)[_.-]?key[\"'\]]?$|key[_.-]?prefix[\"'\]]?$")
# (a separator last: a prefix the code completes, `localStorageKey:"asset-graph-open-nodes-".concat(…)`)
_SLOT_NAME = re.compile(r"_*[a-z]{2,}(?:[_.:-][a-z]{2,})+[_.:-]?")


def _hash_name(name: str) -> bool:
    return any(w.lower() in _HASH_WORDS for w in _IDENT_WORDS.findall(name))


# ------------------------------------------------------------ found by form ---
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


def _hint_literals(hint: str | tuple[str, ...]) -> tuple[str, ...]:
    """A row's hint as literals, each with a leading `=` when case-sensitive."""
    if isinstance(hint, tuple):
        return hint
    if hint.startswith("~"):
        return (hint,)
    return tuple("=" + h for h in hint[1:].split("|")) if hint.startswith("=") else tuple(hint.split("|"))


_RULES = tuple((rid, tuple(h[1:] if h.startswith("=") else h.lower() for h in _hint_literals(hint)
                          if not h.startswith("~")), re.compile(pattern))
               for rid, hint, pattern in RULES)
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


def _filler(value: str) -> bool:
    """A token-shaped placeholder: its end made of a few characters repeating (`AIzaaaaa…`, `GR1348941` then
    `123123…`, `glc_111…=`, `…-1D1D-1D1D1D1D1D1D`), or a documented example written out again and again
    (`…EXAMPLEEXAMPLE…`). A few characters not repeating in a run or a unit (`…34c323c3223c223232c32`) are a
    value's."""
    if value.count("EXAMPLE") >= 2:
        return True
    if len(value) < 16 or len(set(value[-16:])) >= 5:
        return False
    tail = value[-16:]
    if _FILLER_RUN.search(tail):
        return True
    unit = tail.replace("-", "").rstrip("=")
    return any(all(unit[i] == unit[i + p] for i in range(len(unit) - p)) for p in (1, 2, 3, 4))


_FILLER_RUN = re.compile(r"(.)\1{3}")


def _masked_after(match: re.Match[str]) -> bool:
    """A token whose form stops where a mask begins (`xoxp-…-####`, `sk_live_abc***`)."""
    after = match.string[match.end():match.end() + 3]
    return after in ("###", "***", "...", "xxx", "XXX") or after.startswith("…")


# A token that says it is an example: ends so (`…tokenexample`, `…keyexample`) or says it (`…ThisIsAnExample…`);
# not a hash's `user@EXAMPLE.TEST` realm.
_SAYS_EXAMPLE = re.compile(r"(?i)example(?:s|key|token|secret|only)?$|this_?is_?an?_?example|not_?a_?real")


# The prefixes _provider_stub knows: the rule table's hints of four characters and more that end in `_`, `-` or `.`
# (`glpat-`, `npm_`, `sk-proj-`), less the ones that are words (`api-`, `key_`, `test_`); _TOKEN's own (`ghp_`,
# `xoxb-`, `sk_live_`); `SG.`, `hf_` and `sk-`, three characters each.
_STUB_WORDS = {"api-", "key-", "key_", "live_", "test_", "pat_", "pat.", "secret_", "1000.", "curlopt_", "bundle_",
               "sdk-", "ico-", "rgapi-"}
_STUB_PREFIX = re.compile("(?i)(?:gh[pousr]_|github_pat_|xox[abeoprs]-|[rs]k_(?:live|test)_|sg\\.|hf_|sk-|" + "|".join(
    re.escape(h) for h in sorted({h.lower() for _, hints, _ in _RULES for h in hints
                                  if len(h) >= 4 and h[-1] in "_-." and h.lower() not in _STUB_WORDS},
                                 key=len, reverse=True)) + ")")


def _rule_value_kept(value: str) -> bool:
    """A placeholder where a rule expects a secret: `xxxx…`, `<token>`, `$VAR`, a doc's example (`…EXAMPLEKEY`, or
    one that says so, `…tokenexample`, `…ThisIsAnExample…`)."""
    return (REDACTED in value or value[:1] in ("{", "$", "%", "<") or len(set(value)) < 5 or _filler(value)
            or ("xample" in value and _SAYS_EXAMPLE.search(value) is not None)
            or _TOKEN_PLACEHOLDER.search(value) is not None or _DOC_EXAMPLE.search(value) is not None
            or value.lower() in _PROSE_AFTER_FLAG
            or _METAVAR.fullmatch(value) is not None or is_benign_value(value))


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
            or _REFERENCE_OR_PLACEHOLDER.match(value)) or (
            scheme is not None and scheme.lower() == "basic" and _template_basic(value)) or (
            # a scheme's parameters by name, their values concatenated (nusoap's `'Digest username="' . $username`)
            re.fullmatch(r"[A-Za-z_]+=", value) and match.string[match.end():match.end() + 1] in "\"'") or (
            # a Digest header's user or realm, no response after it (vulhub's `Authorization: Digest username=admin`)
            scheme is not None and scheme.lower() == "digest" and _DIGEST_PARAM.match(value)):
        return match.group(0)
    return _replace(match, "value")


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


# ------------------------------------------------------- private-key blocks ---
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
                if m.group("doc") in flat_docs and _k8s_value(m.group("value")):
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
                            b64 and _k8s_short_b64(child.group("value"))):
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


def _yaml_block_password_changes(text: str, done: dict[int, str]) -> dict[int, str]:
    """{line start: redacted line} for the one-word lines of a password's YAML block scalar (_YAML_BLOCK_PASSWORD)."""
    out: dict[int, str] = {}
    for m in _YAML_BLOCK_PASSWORD.finditer(text):
        at = text.find("\n", m.end()) + 1
        while 0 < at < len(text):
            e = text.find("\n", at)
            e = len(text) if e < 0 else e
            body = done.get(at, text[at:e])
            value = body.strip()
            if value and len(body) - len(body.lstrip()) <= len(m.group("ind")):
                break
            if value and " " not in value and "\t" not in value and REDACTED not in value and not (
                    _PLACEHOLDER.match(value) or value.lower() in _SAMPLE_PASSWORDS):
                out[at] = body[:len(body) - len(body.lstrip())] + REDACTED + ("\r" if body.endswith("\r") else "")
            at = e + 1
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


def _redacted_as_assignment(name: str, value: str) -> bool:
    """Would `name = "value"` on one line be redacted? How a pass whose name and value stand on different lines
    judges the value: by the one-line rules, so a placeholder, a reference or a name no secret's keeps it."""
    probe = f'{name} = "{value}"'
    return _redact_line(probe) != probe


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


def may_hold_secret(text: str) -> bool:
    """Can any free-text pattern match? Each needs an `=`, a `:`, a flag's `-` or an XML end tag's `</`,
    SQL's `PASSWORD '…'` a quote (or `IDENTIFIED BY` before it), or it is a token of a known form (`AKIA…`,
    `ghp_…`, `eyJ…`); a literal compared by `Equals(`, `strcmp(`, given to a key derivation's constructor, by
    position to a connection's call, after a quoted secret's name to a call or to a secret's setter needs none of
    these, nor does a private key's DER in base64 alone on its lines, a spec's `%define NAME "…"` or a shell's
    `set NAME …`, a code span after a secret's label and `is` (_LABELLED_CODE)."""
    return ("=" in text or ":" in text or "-" in text or "'" in text or "</" in text or _FORM_HINT.search(text) is not None
            or "dentified" in text or "DENTIFIED" in text  # a bare password after SQL's `IDENTIFIED BY`
            or ('"' in text and ("quals(" in text or "DeriveBytes(" in text or ".sign(" in text or "wt." in text
                                 or "WT." in text or "oken." in text or _CALL_HINT.search(text) is not None))
            or _RULE_HOT.search(text.lower()) is not None or _CS_RULE_HOT.search(text) is not None
            or _RE_HINT_ANY.search(text) is not None or _LABEL_HINT.search(text) is not None
            or ("," in text and _LIST_HINT.search(text) is not None)
            or ("(" in text and (_SETTER_HINT.search(text) is not None or _METHOD_CALL.search(text) is not None
                                 or _key_bytes_hint(text)))
            or ("M" in text and _DER_KEY_HEAD.search(text) is not None)
            or (("%" in text or "et " in text or "ET " in text) and _SET_WORD.search(text) is not None)
            or (" is `" in text and _LABELLED_CODE.search(text) is not None))


# What a _LIST_PAIR line holds when it has no `=`, `:`, `-` or `'`: a quoted secret's name, a comma, a quote
# (talisman's `"pwd" ,"…"`, `["token", "…"]`).
_LIST_HINT = re.compile(r"(?i)\"[\w.$@]*(?:secret|passw|pwd|pword|passphrase|token|cred|key)[\w.$@]*\"\s*,\s*\"")


# What a call holding a password by position (_CONNECT_CALL) or a comparing function's (_CMP_CALL) line holds
_CALL_HINT = re.compile(r"(?i)connect|_bind|change_user|passwd|imap_open|log[io]n|new\s+(?:pdo|mysqli|maxdb)\b|cmp\(|"
                        r"hash_equals|compare|"
                        # ... or a secret-named pair given to a call (_CALL_PAIR: `define("App\Token", "…")`)
                        # (the word looked for ahead, the string then read once: `("keykeykey…` was quadratic)
                        r"\(\s*\"(?=[^\"\n]*?(?:secret|passw|pwd|token|key|cred|auth))[^\"\n]*+\"\s*,")
# What a _SETTER_CALL line holds (the gate of its `sub`, and of may_hold_secret for a line with no `=`, `:`, `-` or
# `'`): a setter's start and a name ending in a secret's word, its `(`, a literal's prefix and quote; every
# _SETTER_CALL match holds one.
_SETTER_HINT = re.compile(r"(?i)\b(?:set|with)_?[a-z0-9_]*?(?:" + _SECRET_CORE + "|" + _FOREIGN_PASSWORD
                          + r")[0-9]*\s*\(\s*(?:@|[bru]{1,2})?[\"'`]")


def _key_bytes_hint(text: str) -> bool:
    """Can _KEY_BYTES or _ADD_IDENTITY match (substring tests: their names are rare)?"""
    return "ddIdentity" in text or ("etBytes" in text and (
        "SecretKeySpec" in text or "SymmetricSecurityKey" in text or "HMAC" in text))
# What a _LABELLED line holds when it has no `=`, `:` or `-`: a secret's word, blanks, a long value.
_LABEL_HINT = re.compile(r"(?i)(?:secret|token|key|passw(?:or)?d|pwd)[ \t]+[A-Za-z0-9+/=_.~]{16}")


# A name whose value is a secret whatever it looks like: a secret word, or "key"/"token" with a
# qualifier that makes it a credential (`api_key`, `SigningKey`, `accessToken`), or alone.
_STRONG_NAME = re.compile(
    r"secret|passw|pwd|passphrase|credential|creds|connectionstring|"
    r"(?:api|access|private|secret|signing|encryption|client|account|subscription|master|auth|sharedaccess|storage|"
    r"license|app|preshared|consumer|session|refresh|bearer|bot|deploy|service|admin|oauth|personal|webhook|github|gitlab|slack|"
    # (a provider's: `FACEBOOK_TOKEN`)
    r"npm|pypi|nuget|docker|registry|hmac|jwt|csrf|xsrf|cookie|encrypt|decrypt|cipher|aes|sas|id|facebook)"
    r"(?:key|token)")
_WEAK_WORDS = frozenset("key keys token tokens".split())


def _name_tier(name: str) -> int:
    """2: a secret's name (`password`, `ApiKey`, `key`); 1: "key" or "token" as a word of a longer name,
    which holds a secret only when the value looks like one (`primary_key`, `design_token`, `cache_key`);
    0: no secret word, or only inside another word (`keywords`, `keyboard_shortcut`, `monkey_patch`)."""
    if not name or _NOT_SECRET_NAME.search(name):
        return 0
    words = [w.lower() for w in _IDENT_WORDS.findall(name)]
    # `pass` as a name's last word after another (a parsed `.env`'s `SMTP_PASS`, YAML's `db_pass`): an account's
    # password (_PASS_HOLDERS) as `password` is, any other's when its value looks generated (`test_pass`), never a
    # step's (`first_pass`, `render_pass`: _PASS_STEP), as free text's _PASS_NAMED reads them
    if tier := _pass_tier(words):  # (a step's pass is judged as any name: `secret_first_pass` holds `secret`)
        return tier
    compact = "".join(words)
    if _STRONG_NAME.search(compact) or compact in ("key", "keys", "token", "tokens", "apikey", "pass"):
        return 2
    return 1 if _WEAK_WORDS.intersection(words) or compact.endswith(("key", "token")) and not (
        compact.endswith(("monkey", "turkey", "donkey", "hockey", "whiskey", "jockey"))) else 0


@functools.lru_cache(maxsize=4096)
def _secret_name(name: str) -> tuple[bool, bool]:
    """(is a secret key, is a section of secrets) for one key name. A section's last word is the secret's
    (`ConnectionStrings`, `Secrets`, `db_credentials`), and it is a plain name: `check-secret-access` (a job),
    `passwordHistory`, `changePasswordUriSettings` say what their keys are about, and a dotted name is a package's or a
    host's (`Microsoft.Extensions.Configuration.UserSecrets` in a lock file), none of them a place for secrets."""
    if "/" in name and not name.endswith("/") or "\\" in name:
        # a package's name (`@inquirer/password`, `node_modules/@inquirer/password`), a PHP namespace (Composer's
        # `autoload: {psr-4: {"Passbolt\\PasswordGenerator\\": "./plugins/…/src"}}`)
        return False, False
    if not SECRET_SECTION.search(name) or _NOT_SECRET_NAME.search(name) or "." in name or "/" in name:
        return _name_tier(name) == 2, False
    words = [w.lower() for w in _IDENT_WORDS.findall(name)]
    section = bool(words) and (words[-1] in _SECTION_WORDS or words[-2:] in (["connection", "string"],
                                                                              ["connection", "strings"])) and not (
        # (an action on one: Boundary's rate limits' `account: {change-password: [{per: total}]}`)
        len(words) >= 2 and words[-2] in _ACTION_VERBS)
    return _name_tier(name) == 2, section


def _last_word(name: str) -> str:
    words = _IDENT_WORDS.findall(name)
    return words[-1].lower() if words else ""


_ACTION_VERBS = frozenset("change set reset update forgot verify create delete rotate".split())
_SECTION_WORDS = frozenset("secret secrets password passwords credential credentials creds".split())
# What a key's value is, said by its name: a location (`secrets: {ssl-ca: {file: ca.crt}}`, Compose's), an address
# (`secrets: {db: {host: db.internal}}`, Spring's `keyvault.secret.property-sources[0].endpoint`) or a name, never a
# secret because its section holds them.
_LOCATION_WORDS = frozenset("file path dir directory url uri location host hostname port endpoint server address addr "
                            "name username user login email "
                            # (and a record's own fields: dex's `staticPasswords: [{userID: …, groups: [team-a]}]`,
                            # Keycloak's `credentials: [{id: …, createdDate: 1591297959315}]`)
                            "id ids uuid group groups date".split())
# A parameter's or a schema's attributes (CloudFormation's `Parameters: {DBPassword: {Type: String, MaxLength: 41,
# NoEcho: true}}`, a JSON Schema's `password: {type: string, minLength: 8}`, an XML element's `class`): what the secret
# is like, not the secret; judged by themselves under a section of secrets (its `Default` stays the secret's).
_SCHEMA_WORDS = frozenset("type minlength maxlength noecho description allowedpattern allowedvalues "
                          "constraintdescription pattern format title minimum maximum nullable sensitive class "
                          # (an MSBuild element's `Condition`)
                          "condition".split())
_SCHEMA_VALUE_WORDS = frozenset(("default", "example", "examples", "const", "enum", "value"))
# A JSON Schema's maps of named schemas: its fields and its definitions.
_SCHEMA_MAPS = frozenset(("properties", "patternProperties", "$defs", "definitions"))
# Collections of named units (a workflow's `jobs`, Compose's `services`, `volumes`, `networks`): a unit's name says
# what the unit is or runs (`jobs: {git-secrets: {runs-on: …}}`, a job running that scanner), not that its keys are
# secrets.
_UNIT_COLLECTIONS = frozenset("jobs services volumes networks tasks stages workflows targets".split())
# Python's logging configuration (`[loggers] keys = root,sqlalchemy`, alembic.ini's): the names of its sections.
_LOGGING_SECTIONS = frozenset("loggers handlers formatters".split())


# Within values_as_text(): a translation file's values, judged by their form alone (config.py's _TRANSLATION_PATH).
_VALUES_AS_TEXT: contextvars.ContextVar[bool] = contextvars.ContextVar("values_as_text", default=False)


@contextlib.contextmanager
def values_as_text():
    """While it is open, redact_value and is_secret_key read no key's name: a translation file's keys name messages
    (`"LABEL_PASSWORD": "Passwort"`, `"Invalid email or password.": "メールアドレスか…"`), its values are a user
    interface's words, and only a secret's form in them (a token, a key block, a URL's credentials) is redacted, as
    in free text."""
    token = _VALUES_AS_TEXT.set(True)
    try:
        yield
    finally:
        _VALUES_AS_TEXT.reset(token)


def _record_key(parts: list[str], named: list[str]) -> bool:
    """A list item's bare `key` (`challenges: [{key: restfulXssChallenge}]`, `[{"key": "en", "lang": "English"}]`)
    or a license's or a project's (_RECORD_PARENTS): the record's id, judged by its look as a name holding "key" is;
    not in a list named for secrets (`api_keys: [{key: …}]`)."""
    return len(parts) >= 2 and parts[-1].lower() == "key" and (
        parts[-2].isdigit() or parts[-2].lower() in _RECORD_PARENTS) and not (
        len(named) >= 2 and _secret_name(named[-2])[0])


# Objects whose bare `key` is their id (GitHub's API: a repository's `license: {key: apache-2.0}`; Bitbucket's
# `project: {key: DEV}`).
_RECORD_PARENTS = frozenset(("license", "project"))


def is_secret_key(path: tuple[str, ...] | list[str] | str) -> bool:
    """Does a parsed value under this key path hold a secret whatever it looks like?

    The value's own key (the last non-index component) is a secret's name (and
    is none of the names that only sound secret: `MaxTokens`, `KeyVaultName`,
    `secretName`), or an ancestor is a section of secrets (`ConnectionStrings`,
    `Secrets`). A key with "key" or "token" as one word of a longer name
    (`sort_key`) is not: `redact_value` looks at its value.
    """
    if _VALUES_AS_TEXT.get():
        return False
    parts = _path_parts(path)
    named = [p for p in parts if not p.isdigit()]
    if _record_key(parts, named):
        return _in_secret_section(named)
    if len(named) >= 2 and (named[-1] == "keys" and named[-2].lower() in _LOGGING_SECTIONS or (
            # the key a reference reads (Kubernetes' `secretKeyRef: {name: db, key: username}`): a name
            named[-1].lower() in ("key", "name") and _last_word(named[-2]) == "ref")) or (
            # an Android preference's key (`<EditTextPreference android:key="server_preference">`): the name it is
            # stored under, judged by what it looks like
            named and named[-1].lower().lstrip("@") in ("android:key", "app:key")):
        return False
    if named and _secret_name(named[-1])[0]:
        return True
    # (a location's name, `file: ca.crt`; a name that says it names a secret, Kubernetes' `secret: {secretName: …}`;
    # a package's, `"@inquirer/password": "^4.0.21"`: judged by what they say, not by their section)
    if named and (_last_word(named[-1]) in _LOCATION_WORDS or _NOT_SECRET_NAME.search(named[-1]) or (
            named[-1].lower().lstrip("@") in _SCHEMA_WORDS)):
        return False
    return _in_secret_section(named)


def _in_secret_section(named: list[str]) -> bool:
    """Is an ancestor of a key path's last name a section of secrets (a unit's name in a collection is none, and an
    object's `labels` or `annotations` below it are names: Helm's `jwtKeySecret: {labels: {app: crapi-identity}}`)?"""
    # (the last field's schema in the path, a JSON Schema's `properties` before it)
    deepest = max((i for i, q in enumerate(named[:-1]) if q == "properties"), default=-1)
    for k, p in enumerate(named[:-1]):
        # (a JSON Schema's field or definition, `properties: {imagePullSecrets: {items: …}}` in a CRD's
        # openAPIV3Schema, describes values, not holds them; its `default` or `example` is one, unless a deeper
        # field's schema holds it: `$defs: {FilePassword: {properties: {algorithm: {enum: […]}}}}`)
        if k and named[k - 1] in _SCHEMA_MAPS and (named[-1].lower() not in _SCHEMA_VALUE_WORDS or deepest > k):
            continue
        if _secret_name(p)[1] and not (k and named[k - 1].lower() in _UNIT_COLLECTIONS):
            return not any(q.lower() in ("labels", "annotations") for q in named[k + 1:-1])
    return False


_CHAR_CLASSES = (re.compile(r"[a-z]"), re.compile(r"[A-Z]"), re.compile(r"[0-9]"))
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9+/=_.~-]+")
_HEX_ONLY = re.compile(r"[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
# Names of what is random but no secret: ids, versions, commits.
_ID_WORDS = frozenset("id ids uuid guid rev revision commit version ref sha tag image digest".split())
# One word of a slug or an identifier: letters (maybe a short number after them: `v2`, `utf8`) or a number.
_SLUG_PART = re.compile(r"[A-Za-z]+[0-9]{0,4}|[0-9]+")
_WORDISH = re.compile(r"[A-Z]?[a-z]{3,}")


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def looks_random(value: str, min_len: int = 12) -> bool:
    """Does a value look like a generated secret: one run of token characters, not words
    (`color-primary-500`, `created_at`), not a number, a uuid or a git sha, mixed
    character classes and high entropy?"""
    v = value.strip()
    if len(v) < min_len or not _TOKEN_CHARS.fullmatch(v) or _UUID.fullmatch(v) or v.isdigit():
        return False
    if _HEX_ONLY.fullmatch(v):
        return len(v) >= 32 and len(v) != 40 and _entropy(v) >= 3.0
    if all(_SLUG_PART.fullmatch(p) for p in re.split(r"[_.:/~+=-]+", v) if p):
        return False  # words and short numbers: an identifier, a slug, a version
    if sum(map(len, _WORDISH.findall(v))) * 2 >= len(v):
        return False  # mostly words: a file name, a label (`S2ORC_title_abstract.jsonl.gz`)
    classes = sum(1 for c in _CHAR_CLASSES if c.search(v))
    return classes >= 2 and _entropy(v) >= (3.0 if len(v) < 24 else 3.5)


def _ordinary_but_random(path: tuple[str, ...] | list[str] | str, value: str) -> bool:
    """A value under an ordinary name that is a secret by its look alone (a `.env`'s `APP_SEED=…`):
    long, all three character classes, high entropy; never hex (a digest, a commit), never under an
    id's, a version's or a hash's name anywhere on its path (`hashes:0:content`)."""
    v = value.strip()
    name = _last_name(path)
    if len(v) < 20 or _HEX_ONLY.fullmatch(v) or not looks_random(v, 20) or is_benign_value(v, name):
        return False
    parts = _path_parts(path)
    # (a name's words, and the name whole: `md5` is read as `md`, `5`)
    words = {w.lower() for p in parts for w in _IDENT_WORDS.findall(p)} | {p.lower() for p in parts}
    if words & _ID_WORDS or words & _HASH_WORDS or _ABSOLUTE_WORD_PATH.fullmatch(v):
        return False
    if name.lower() in _JWK_PUBLIC and any(p.lower() in ("keys", "jwk", "jwks") for p in parts[:-1]):
        return False  # a JSON Web Key's public part (`{"keys": [{"kty": "RSA", "n": "vfk9…", "e": "AQAB"}]}`)
    if _compressed_markup(v):
        return False
    return all(c.search(v) for c in _CHAR_CLASSES) and _entropy(v) >= 4.0


def _compressed_markup(value: str) -> bool:
    """Base64 of raw DEFLATE whose first bytes inflate to markup (a draw.io file's `<diagram>`, the drawing compressed,
    `%3CmxGraphModel…` once inflated): a document's data, never a secret, whatever its look. Reads 4,000 characters
    at most and inflates 64 bytes."""
    head = value[:4000]
    head = head[:len(head) - len(head) % 4]
    if len(head) < 100:
        return False
    try:  # (validate: base64's alphabet only, its padding at the end)
        out = zlib.decompressobj(-15).decompress(base64.b64decode(head, validate=True), 64)
    except (ValueError, zlib.error):
        return False
    return out.startswith((b"%3C", b"<"))


# A JSON Web Key's public members: an RSA key's modulus and exponent, an EC key's point, its certificate chain and
# thumbprints, its id (its private members, `d`, `p`, `q`, `dp`, `dq`, `qi`, `k`, are judged as any value is).
_JWK_PUBLIC = frozenset(("n", "e", "x", "y", "x5c", "x5t", "x5t#s256", "kid"))


# An absolute path with a word of its own among its pieces (`/20141201/lineups/USA-CA00053-DEFAULT`): a location.
_ABSOLUTE_WORD_PATH = re.compile(r"/(?:[^/\s]+/)*[a-z]{4,}(?:/[^/\s]*)*")


def _path_parts(path: tuple[str, ...] | list[str] | str) -> list[str]:
    """A key path's parts as strings (one part for a bare name): what is_secret_key, _ordinary_but_random and
    redact_value read."""
    return [path] if isinstance(path, str) else [str(p) for p in path]


def _last_name(path: tuple[str, ...] | list[str] | str) -> str:
    if isinstance(path, str):
        return path
    named = [str(p) for p in path if not str(p).isdigit()]
    return named[-1] if named else ""


_LIST_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
# Identifiers with a separator, one or more (`ssl-ca`, `LD-ACCESS-TOKEN`, `BW-GHAPP-ID,BW-GHAPP-KEY`): secrets' names.
_SECRET_NAME_ONE = r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+"
_SECRET_NAMES = re.compile(rf"{_SECRET_NAME_ONE}(?:[ \t]*,[ \t]*{_SECRET_NAME_ONE})*")


def redact_value(path: tuple[str, ...] | list[str] | str, value: str) -> str:
    """A parsed config value, redacted by its key path, then by its content: under a
    secret's name whatever it is (placeholders and references aside), under a name with
    "key" or "token" in it when it looks random, under any name when it is plainly a
    generated secret."""
    if value != "" and not _VALUES_AS_TEXT.get():
        name = _last_name(path)
        parts = _path_parts(path)
        if parts and parts[-1].isdigit() and (m := _LIST_ASSIGNMENT.fullmatch(value)):
            # a list's `NAME=value` (Compose's `environment:`, Docker's `Env`): the value judged under its name
            return f"{m.group(1)}={redact_value(tuple(parts[:-1]) + (m.group(1),), m.group(2))}"
        if name.lower() == "secrets" and _SECRET_NAMES.fullmatch(value.strip()):
            return redact_text(value)  # the names of secrets (Compose's `secrets: [ssl-ca]`, an Action's input)
        if is_secret_key(path):
            if not is_benign_value(value, name):
                return REDACTED
        elif (_name_tier(name) == 1 or _in_secret_section(named := [p for p in parts if not p.isdigit()]) or (
                _record_key(parts, named))) and looks_random(value) and not is_benign_value(value, name):
            return REDACTED  # (a location's or a name's key in a section of secrets, a record's key: a generated value)
        elif _ordinary_but_random(path, value):
            return REDACTED
    return redact_text(value)


def _url_cred(m: re.Match[str]) -> str:
    """`scheme://user:password@`, unless the password is a mask or a variable (`user:*****@`, `u:$password@`,
    `u:{pwd}@`), GitHub's fixed `x-oauth-basic` after a token that is a variable, template expressions split at
    their own `:` (_URL_USERINFO_HOLES), a regular expression or a syntax's optional part as the user, or a syntax's
    words as both (_TEMPLATE_USERS, _TEMPLATE_PASSWORDS)."""
    password = m.group(3)
    # (GitHub's fixed `x-oauth-basic` after a token that is a variable, `${TOKEN}:x-oauth-basic@`, holds nothing)
    if _URL_PASSWORD_HOLE.fullmatch(password) or (
            password == "x-oauth-basic" and _URL_PASSWORD_HOLE.fullmatch(m.group(2))) or (
            m.group(2).count("{") > m.group(2).count("}") and _URL_USERINFO_HOLES.fullmatch(f"{m.group(2)}:{password}")
            or "|" in m.group(2) or m.group(2).startswith(("[", "(")) and not m.group(2).startswith(REDACTED)) or (
            m.group(2).rsplit(";", 1)[-1].lower() in _TEMPLATE_USERS and password.lower() in _TEMPLATE_PASSWORDS) or (
            _URL_PASSWORD_PLACEHOLDER.fullmatch(password)):
        return m.group(0)
    return f"{m.group(1)}{REDACTED}:{REDACTED}@"


def _url_with_hole(value: str) -> bool:
    """A URL whose credentials say where a password goes (`mongodb://user:xxx@…` under `CONNECTION_STRING=`): it is
    judged by its credentials, as in any other line, not whole as a secret-named value."""
    m = _URL_CRED.match(value)
    return m is not None and _url_cred(m) == m.group(0)


def _url_cred_more(m: re.Match[str]) -> str:
    """A multi-host URI's other hosts' `,user:password@`, judged as the first host's (_url_cred)."""
    if _URL_PASSWORD_HOLE.fullmatch(m.group(3)):
        return m.group(0)
    return f"{m.group(1)},{REDACTED}:{REDACTED}@"


# A password that says where one goes (`postgres://app:your_password_here@`, `:REPLACE_ME_PASSWORD@`,
# `:TODO_SET_PASSWORD@`, `:insert-password-here@`): an instruction, no password. A dummy that could be one
# (`:changeme@`, `:mysecretpassword@`) is not (the twelfth round's policy).
_URL_PASSWORD_PLACEHOLDER = re.compile(
    r"(?i)(?:your|enter|insert|put)[_-].*|.*[_-]here|replace[_-]?me(?:[_-].*)?|todo(?:[_-].*)?|tbd|placeholder")
# (a composite format's numbered hole, `user:{0}@`, or a named one, `{pwd}`, `{self.POSTGRES_PASSWORD}`: the text holds
# the variable's name, and the value, where the text has it, is judged where it is assigned; one character, `user:;@`:
# no secret)
_URL_PASSWORD_HOLE = re.compile(r".|\*{2,}|x{3,}|X{3,}|\$\{?[A-Za-z_]\w*\}?|\{\{+[^{}]*\}\}+|%[A-Za-z_]\w*%|<[^<>]*>|"
                                r"\{\d+(?:,-?\d+)?(?::[^{}]*)?\}|\{[ \t]*[A-Za-z_][\w.]*[ \t]*\}|"
                                # a printf verb or an empty positional hole, filled by the call's arguments
                                # (Go's `fmt.Sprintf("postgres://%s:%s@host/%s", user, pass, db)`, `%(pw)s`, `{}`)
                                r"%(?:\[\d+\])?[-+# 0]*\d*[svqdx]|%\([A-Za-z_]\w*\)s|\{\}|"
                                # an expression filled in by a template or a tool, never a literal (thirty-ninth round:
                                # `${process.env.DB_PASSWORD}`, `${self:custom.db.password}` but not a shell default's
                                # `${DB_PASSWORD:-Y6BV…}`, make's `$(DB_PASSWORD)`, Ruby's and Azure DevOps' `#{pass}`
                                # and `#{db-password}#`, jq's `\(.password)`, `$DB_PASS$`)
                                r"\$\{(?![^{}\n]*:[-=])[^{}\n]+\}|\$\([A-Za-z_][\w.]*\)|#\{[^{}\n]*\}#?|"
                                r"\\\(\.?[\w.]*\)|\$[A-Za-z_]\w*\$|"
                                # Perl's and its kin's hash of the environment (`$ENV{DB_PASS}`, `$env{admin_pwd}`)
                                r"\$[A-Za-z_]\w*\{[A-Za-z_][\w.]*\}|"
                                # a bracketed placeholder (`[YOUR-PASSWORD]`) and a regular expression's wildcard
                                # (`(postgres://.*:)(.*)(@.*)`)
                                r"\[[A-Za-z][A-Za-z_ -]*\]|[()]*\.[*+][()]*")


# A URL's user and password that are template expressions or format holes whose own `:` split them wrongly (the
# user's `{` left open: serverless' `${self:custom.db.username}:${self:custom.db.password}@`, Python's `{:s}@`; not
# a shell default's literal, `${DB_PASSWORD:-Y6BV…}`; a named hole, `{user}:{password}@`, splits right and its
# password is _URL_PASSWORD_HOLE's); a user holding `|` is a regular expression's alternation
# (`(sqlserver://|mongodb://|oracle:thin:@)localhost`).
_URL_USERINFO_HOLES = re.compile(r"(?:\$\{(?![^{}\n]*:[-=])[^{}\n]*\}|\{(?::[^{}\n]*)?\}|:)+")
# A URL's credentials that are a syntax's words, not a value (`user:password@host:port/dbname`, `username:pwd@`,
# `myuser:mypassword@`): both the user and the password a placeholder word (a word that could be one, `secret`,
# `tiger`, is judged as a password still). A user's `[` opens a syntax's optional part
# (`scheme://[user:passwd@]proxy.server:port`). (Also a token's place, `gist://username:token@id/file`, SMB's user
# after its workgroup, `smb://workgroup;user:password@host`, and fsspec's `github://org:repo@sha/path`.)
_TEMPLATE_USERS = frozenset("user username usr login myuser name org".split())
_TEMPLATE_PASSWORDS = frozenset("password passwd pass pwd pw mypassword token repo".split())
_CONN_BIND_USER = re.compile(r"[:@?][A-Za-z_]\w*")


def _conn_part(m: re.Match[str]) -> str:
    value = m.group(3).strip()
    # a bind parameter for the user (`User Id=:username`, `user=@user`): any name (a password's must name it)
    if _CONN_BIND_USER.fullmatch(value) and m.group(2).strip()[:1].lower() in ("u",):
        return m.group(0)
    # a template's part (`Password=your_password`, `Pwd=${DB_PASS}`, `Password=xxxxxxxx`) says where one goes
    if not value or _REFERENCE_OR_PLACEHOLDER.match(value) or _PLACEHOLDER_RUN.search(value) or (
            _REFERENCE_OR_PLACEHOLDER.match(value.split()[0])) or _OPEN_HOLE.fullmatch(value) or (
            value in _WELL_KNOWN_DEV_VALUES):  # Azurite's published account key
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{REDACTED}"


# A part's value that ends in a format hole left open (`Password = invalid {0` before the string's end, `$"…Password
# ={test1` whose hole closes on the next line): a word at most, then `{` and a name or a number.
_OPEN_HOLE = re.compile(r"(?:[A-Za-z]+[ \t]+)?\{[A-Za-z0-9_]*")


def _conn_string(match: re.Match[str]) -> str:
    text = match.group(0)
    if _template_conn(text):
        return text
    return _CONN_CRED.sub(_conn_part, text)


# A connection string's parts that may hold a credential by their name (`Password`, `Pwd`, `AccountKey`,
# `SharedAccessSignature`, `Token`, `Secret`, `Auth…`, a certificate's): a string with none of them names a server.
_CONN_CREDENTIAL_PART = re.compile(r"(?i)pass|pwd|secret|key|token|sig|auth|cert|cred")
_CONN_PART_NAME = re.compile(r"[A-Za-z][A-Za-z _-]*")


def _credential_free_conn(text: str) -> bool:
    """A connection string with no credential (`Server=(localdb)\\mssqllocaldb;Database=app;Trusted_Connection=True`,
    `Host=localhost;Database=catalog`): every part a name and a value, no part's name a credential's, no value
    generated or holding a URL's `user:password@`."""
    parts = [p.strip() for p in text.split(";") if p.strip()]
    if len(parts) < 2:
        return False
    for part in parts:
        name, eq, value = part.partition("=")
        value = value.strip()
        if value.lower() in ("true", "false", "yes", "no") and not _PASSWORD_WORD.search(name):
            continue  # a switch (`TrustServerCertificate=True`) holds no credential
        if not eq or not _CONN_PART_NAME.fullmatch(name.strip()) or _CONN_CREDENTIAL_PART.search(name) or (
                "@" in value or looks_random(_UUID.sub("", value), 16)):
            return False
    return True


# Format holes and separators only (`{cache.bindings.tcp.host}:{cache.bindings.tcp.port}`): no literal to hide.
# (each hole a dotted name of words: `{Zq5kVrX1n8tA}` is a brace-wrapped password)
_HOLE = r"\{[a-z_][a-z0-9_-]*(?:\.[a-z_][a-z0-9_-]*)+\}"
_HOLES_ONLY = re.compile(rf"{_HOLE}(?:[:/;,@ ]*{_HOLE})*")
# A dependency's version range (`^4.0.21`, `~1.2`): package.json's value under a package's name.
# (or a version's wildcard, `1.0.*`, `2.x`: Composer's `"ircmaxell/password-compat": "1.0.*"`)
_VERSION_RANGE = re.compile(r"[\^~][0-9]+(?:\.(?:[0-9]+|x|\*)){1,2}(?:-[\w.]+)?|[0-9]+(?:\.[0-9]+){0,2}\.[x*]")


def _template_conn(text: str) -> bool:
    """A connection string's syntax in words (`…;UID=user;PWD=password`), as a URL's `user:password@`: a user and a
    password, each a placeholder word (_TEMPLATE_USERS, _TEMPLATE_PASSWORDS), and no other credential."""
    users, passwords = set(), set()
    for m in _CONN_CRED.finditer(text):
        key = re.sub(r"[ \t]+", "", m.group(2)).lower().rstrip("=")
        value = m.group(3).strip().lower()
        if key in ("password", "pwd"):
            passwords.add(value)
        elif key in ("userid", "uid", "user", "username"):
            users.add(value)
        else:
            return False
    return bool(users) and bool(passwords) and users <= _TEMPLATE_USERS and passwords <= _TEMPLATE_PASSWORDS


# What follows a string that ends in a name and `=` or `: ` when it is a concatenation, not an assignment
# (`"MasterUserPassword: " + getPassword()`, `'password = '.$p[…]`): an operator, then code.
_CONCAT_VALUE = re.compile(r"\s*(?:\+|\.|&|\|\|)\s*(?:new\s|[$@(\[]|[A-Za-z_][\w.]*\s*[(\[])")


# A secret-named value with a literal fallback or a ternary's literal branches (JavaScript's and C#'s `??`, `||`,
# Python's `or`: `secret = foo || '…'`, `password = env.PASSWORD ?? '…'`, `clientSecret: process.env.X || '…'` in
# an object, `token = os.getenv("X") or "…"`; `token = isDev ? '…' : '…'`, either branch a name): the
# operand before is a name or a member (`env.PASSWORD`, `opts?.secret`, `getEnv()`), or two compared (`a === b ?
# '…' : '…'`, `mode == 'dev' ? …`: the compared literal is no branch); Python's conditional expression too (`x if c
# else '…'`, `os.environ.get("X") if c else '…'`: its `else` literal). Each literal judged as _QUOTED_ASSIGN's, and
# a plain word kept (`|| 'not-set'`). The operand may be a call or a subscript of literals and names
# (`System.getenv("X")`, `process.env["TOKEN"]`); the fallback may be Groovy's and Kotlin's `?:`; and the value may
# be a Groovy command's argument in brackets (Gradle's `password (System.getenv("X") != null ? … : "…")`).
_ALT_QUOTED = r"(?:\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')"  # a literal not judged (compared, an argument)
_ALT_ARG = r"(?:" + _ALT_QUOTED + r"|[\w.$]+)"
_ALT_OPERAND = (r"!?[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*|\(\s*(?:" + _ALT_ARG + r"\s*(?:,\s*" + _ALT_ARG
                + r"\s*){0,3})?\)|\[\s*" + _ALT_ARG + r"\s*\])*")
_ALT_LITERAL = r"(?P<q{n}>[\"'`])(?P<v{n}>(?:\\.|(?!(?P=q{n}))[^\\\n])*)(?P=q{n})"
_ALT_COMPARED = (_ALT_OPERAND + r"(?:\s*(?:[!=]==?|[<>]=?)\s*(?:" + _ALT_OPERAND + "|" + _ALT_QUOTED
                 + r"|-?\d+(?:\.\d+)?))?")
_PY_OPERAND = r"[A-Za-z_][\w.]*(?:\((?:[^()'\"\n]|" + _ALT_QUOTED + r"){0,120}\)|\[(?:[^\[\]'\"\n]|" + _ALT_QUOTED + r"){0,120}\])*"
_ALT_ASSIGN = re.compile(
    r"(?i)(?<![\w.$@-])(?P<name>" + _SECRET_NAME + r")(?:\s*(?:" + _ANNOTATION + r")?(?:=|:=|\?\?=|\|\|=|(?<=[\w$])[ \t]*\()"
    r"|[\"']?[ \t]*:(?![:=]))(?!=)\s*(?:"
    + _ALT_COMPARED + r"\s*(?:(?:\|\||\?\?|\?:|(?<=[ \t])or(?=[ \t]))\s*" + _ALT_LITERAL.format(n=1) + r"|\?\s*(?:"
    + _ALT_LITERAL.format(n=2) + "|" + _ALT_OPERAND + r")\s*:\s*(?:" + _ALT_LITERAL.format(n=3) + "|" + _ALT_OPERAND
    + r"))|(?:" + _ALT_QUOTED + "|" + _PY_OPERAND + r")[ \t]+if[ \t]+(?:[^'\"\n#]|" + _ALT_QUOTED + r"){1,160}?[ \t]else[ \t]+"
    + _ALT_LITERAL.format(n=4) + r")"
)


def _alt_assign(match: re.Match[str]) -> str:
    name, text, start = match.group("name"), match.group(0), match.start()
    if _NOT_SECRET_NAME.search(name):
        return text
    for n in ("1", "2", "3", "4"):
        value = match.group("v" + n)
        # (a plain word is a default's name here, not a password: `?? 'default'`, `|| "not-set"`, `? 'pass' : …`)
        if not value or value == REDACTED or is_benign_value(value, name) or _PLAIN_WORD.fullmatch(value) or (
                match.group("q" + n) == "`" and " " in value):
            continue
        i, j = match.start("v" + n) - start, match.end("v" + n) - start
        text = text[:i] + REDACTED + text[j:]
        start += j - i - len(REDACTED)
    return text


# The names before the last of a multiple assignment (`user, password := "alice", …`): the literal after the
# operator is the first name's, not the last's.
_MULTI_HEAD = re.compile(r"[ \t]*(?:(?:const|var|let)[ \t]+)?[A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*[ \t]*,[ \t]*")


# The words of a quoted label before its last word (`'Slack ` of `'Slack Token': …`), at the end of what precedes.
_LABEL_HEAD = re.compile(r"[\"'][A-Za-z][\w.-]*(?:[ \t][\w.-]+)*[ \t]$")


# A class's name in capitalised words ending in a type's word: a forward reference, not a value.
_FORWARD_REF = re.compile(r"(?:[A-Z][a-z]+)+(?:List|Dict|Set|Type|Config|Model|Tensor|Client|Spec|Info|Data|Result|"
                          r"Response|Request|Map|Array|Sequence|Mapping|Iterator|Protocol|Base|Manager)")
_FILE_NAME_KEY = re.compile(r"(?i)(?:^|[_.])(?:file|filename|path)\W*$")


def _quoted(match: re.Match[str]) -> str:
    value = match.group("value")
    name = match.group("name")
    if name[-1:] in "\"'" and name[:1] not in "\"'" and _UPPER_ID.fullmatch(value):
        head = _LABEL_HEAD.search(match.string[max(0, match.start() - 80):match.start()])
        if head and _label_mapped_to_id(value, head.group(0) + name):
            return match.group(0)
    if match.group("name")[:1] in "\"'" and match.string[:match.start()].rstrip().endswith("?"):
        return match.group(0)  # a ternary's quoted branch (`c ? 'not-a-secret' : '…'`), no key
    if match.group("op").strip() == "=" and _TYPE_ALIAS_HEAD.search(match.string, max(0, match.start() - 40),
                                                                     match.start()):
        return match.group(0)  # a TypeScript type of literals (`type TrustTokenOperationType = "Issuance"|…`)
    if match.group("op").strip() in ("=", ":=") and match.string[match.end():].lstrip().startswith(",") and (
            _MULTI_HEAD.fullmatch(match.string, 0, match.start())):
        return match.group(0)
    if match.group("name")[-2:-1] in "\"'" and match.group("name").endswith("]") and _name_among_names(
            value, match.group("name").strip("\"'[]")):
        return match.group(0)  # a Literal's members (`Literal["none", "client_secret_post"] = "client_secret_basic"`)
    if _FORWARD_REF.fullmatch(value) and match.group("op") == ": " and match.group("name")[:1] not in "\"'" and (
            re.search(r"[(,]\s*$", match.string[:match.start()])):
        return match.group(0)  # a signature's quoted annotation (`def f(secrets: "DgApiSecretList")`)
    if _FILE_NAME_KEY.search(match.group("name")) and re.fullmatch(r"[\w-]+(?:\.[\w-]+)+", value) and not any(
            looks_random(part, 8) for part in value.split(".")):
        return match.group(0)  # a file's name under a file's name (`TIKTOKEN_VOCAB_FILE = "tokenizer.model"`)
    if re.match(r"\s*\+\s*[A-Za-z_]", match.string[match.end():]) and (
            # a concatenation's head ending in a blank (`tokenText = "<missing " + kind + ">"`)
            (value[-1:].isspace() and re.search(r"[^A-Za-z0-9]", value.strip())
             and not _PASSWORD_WORD.search(match.group("name")))
            # words before a variable (`secret_content="secret for bookTitle" + randomint`), a phrase
            or _WORDS_HEAD.fullmatch(value)
            # a connection string's one key, its value the variable (WebGoat.NET's `"Data Source=" + GoatDBFile`)
            or _CONN_KEY_HEAD.fullmatch(value)):
        return match.group(0)
    if value.startswith("${") and "}" not in value:
        return match.group(0)  # a template's expression cut at a quote inside it (`'${hash(req.body.password || '')}'`)
    if match.group("op") == "=" and _BINDING_HEAD.search(match.string, max(0, match.start() - 8), match.start()):
        return match.group(0)  # a template's binding, an expression (Angular's `[password]="password.value"`)
    if value[:1].isspace() and match.group("op").strip() == ":" and (
            _SHELL_JOIN.search(value) or value.rstrip().endswith("=")):
        # a string's closing quote after its `:` (`grep "^FROM org/wrongsecrets:" f | cut …`, an attribute's
        # `name="Check Dave's Password:" value="…"`, `title="Password: " required="true"`)
        return match.group(0)
    if match.group("name")[:1] == match.group("q") and match.group("name")[-1:].isalnum() and (
            match.group("op").strip() == ":") and re.match(r"[)+,.;]", value):
        return match.group(0)  # a label's own string (`debug.append("Token: ").append(token)`): what follows is code
    if _STORAGE_KEY_NAME.search(match.group("name")) and _IDENTIFIER.fullmatch(value.strip("'\"")) and (
            len(value) <= 40 and not looks_random(value.strip("'\""))):
        return match.group(0)  # a browser storage's slot (portainer's `storageKey = 'k8sAppEventsDatatable'`)
    if not value or value == REDACTED or _NOT_SECRET_NAME.search(_INDEX_JOIN.sub(r"_\1", match.group("name"))) or (
            _CONCAT_VALUE.match(value)) or (
            is_benign_value(value, match.group("name"))) or (match.group("q") == "`" and " " in value) or (
            match.group("op").strip() in _COMPARISONS and _lexer_comparison(value, match.group("name"))):
        return match.group(0)
    q = match.group("q")
    return f"{match.group('name')}{match.group('op')}{match.group('pre') or ''}{q}{REDACTED}{q}"


# Two capitalised words or more glued (`AccessToken`, `DateLastActivity`): a column's or a property's name. (Round 57
# named it _PASCAL_WORDS too, which rebound _parser_token's two-to-four-word form for the whole module.)
_PASCAL_NAME = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]+)+")
# Three words or more of letters, a name's camel case among them (`"secret for bookTitle"`): before a concatenation
# with a variable, a message's head, as a phrase of words is (_is_phrase) where a name breaks its words.
_WORDS_HEAD = re.compile(r"[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}")
# A table's literal index read as the name's last word (`credentials["username"]` as `credentials_username`: no secret)
_INDEX_JOIN = re.compile(r"\[[\"']([\w.@-]+)[\"']\]")
# A name whose secret's word is a storage key, no other (`storageKey`, `storage-key`): an Azure account's key is 88
# characters of base64; a name of letters is a slot in a browser's storage.
_STORAGE_KEY_NAME = re.compile(r"(?i)^[\"']?(?:(?!secret|passw|token|cred|auth|api)[\w.-])*?storage[_-]?key[\"']?$")
_CONN_KEY_HEAD = re.compile(r"[A-Za-z][A-Za-z ]{0,30}=")
# An HTML template's attribute binding before a name (Angular's `[password]=`, Vue's `:password=`, `v-bind:token=`).
_BINDING_HEAD = re.compile(r"(?:^|\s)(?:\[|:|v-bind:)$")
# A shell's pipe or list between blanks: a command's text, never a secret's.
_SHELL_JOIN = re.compile(r"\s(?:\||\|\||&&|;)\s")
_TYPE_ALIAS_HEAD = re.compile(r"(?:^|[\s;{(])(?:export[ \t]+|declare[ \t]+)*type[ \t]+$")
_ENCODINGS = frozenset("base64 base64url hex utf8 utf-8 utf16le utf-16le ucs2 ascii latin1 binary".split())


def _name_among_names(value: str, name: str) -> bool:
    """Two names in a tuple or a call (`("client_secret_post", "client_secret_basic")`, `@field_serializer('password',
    'password_bytes')`, `('inputsecret', 'inputsecret')`): the value is the name itself, or words of lower-case letters
    joined by `_` sharing a word with the name. A value with a digit or a capital stays (`"client_secret_8fK2pQ"`),
    unless each of its words is one of the name's; an upper-case macro's name (`"METH_NOARGS"`) and letters around one
    `$` after a name holding `$` are names too."""
    if value.lower() == name.lower():
        return True
    # a C macro's name after a function's (`("set_secret_data_policy", "METH_NOARGS")`); a value in the name's own
    # notation, letters around one `$` (pygments' `_shortened_many('pwd$', 're$read')`: a command's shortest form)
    if _UPPER_ID.fullmatch(value) or ("$" in name and re.fullmatch(r"[a-z]+\$[a-z]*", value)):
        return True
    # two PascalCase names (EF Core's `b.HasIndex("AccessToken", "DateLastActivity")`: columns), no password's word
    if _PASCAL_NAME.fullmatch(value) and _PASCAL_NAME.fullmatch(name.strip("\"'`")) and (
            not _PASSWORD_WORD.search(name)):
        return True
    words = set(w.lower() for w in _IDENT_WORDS.findall(name))
    if re.fullmatch(r"[a-z]+(?:[_.][a-z]+)+", value):  # (a dotted path of them: `"embeddings.cls_register_token"`)
        return bool(set(re.split(r"[_.]", value)) & words)
    # every word of the value among the name's (`("qwen2_5_omni_token2wav", "qwen2_5_omni")`): the name's prefix
    return bool(re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", value)) and all(
        w in words for w in _IDENT_WORDS.findall(value))


# A message's key, lower-case words joined by `-` or `.`, three or more, the last no secret's word
# (`getMessage("jwt-secret-incorrect-user", "default")`): a text's id, its arguments no secret unless generated.
_MESSAGE_KEY = re.compile(r"[a-z0-9]+(?:[-.][a-z0-9]+){2,}")


# A schema's or a validator's builder given a field's name, then the field's type or a rule's name (Phinx's
# `->addColumn('secret_id', 'uuid', [...])`, CakePHP's `->requirePresence('password', 'create', __('…'))`, `->add(
# 'password', 'no_quotes', [...])`: a plain word, and for `add` a third argument, as a setter's `v.Add("password",
# "test")` has none): no value of the field's.
_FIELD_BUILDER = re.compile(r"(?:->|\.)(?:(?P<add>add)|addColumn|addField|changeColumn|requirePresence)[ \t]*$")
_BUILDER_WORD = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*|[a-z]+(?:[A-Z][a-z]+)+")


def _builder_word(match: re.Match[str]) -> bool:
    builder = _FIELD_BUILDER.search(match.string, max(0, match.start() - 40), match.start())
    return builder is not None and _BUILDER_WORD.fullmatch(match.group("value")) is not None and (
        builder.group("add") is None or match.string[match.end():match.end() + 8].lstrip().startswith(",")) and (
        not looks_random(match.group("value")))


# A constant naming a field in a call, read as the field's name (`addHeader(SECRET_HEADER_NAME, "…")`: a header's
# value, judged under SECRET_HEADER).
_CONST_NAME_END = re.compile(r"_NAME$")


def _quoted_call(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if match.re is _CONST_CALL_PAIR:
        # (a constant naming the field: its value is the field's, `addHeader(SECRET_HEADER_NAME, "…")` a header's)
        name = _CONST_NAME_END.sub("", name)
    if match.re is _CALL_PAIR and _builder_word(match):
        return match.group(0)
    if _MESSAGE_KEY.fullmatch(name) and _last_word(name) not in _KEY_WORDS and not looks_random(value):
        return match.group(0)
    if not value or value == REDACTED or _NOT_SECRET_NAME.search(name) or is_benign_value(value, name) or (
            _name_among_names(value, name)) or (value.lower() in _ENCODINGS) or (
            not _SECRET_CORE_RE.search(name) and not looks_random(value)):
        return match.group(0)
    return _replace(match, "value")


def _setter_call(match: re.Match[str]) -> str:
    """_SETTER_CALL's literal, judged as _quoted_call judges a secret's; a setter named in another language
    (_FOREIGN_PASSWORD) as a password's."""
    if _SECRET_CORE_RE.search(match.group("name")):
        return _quoted_call(match)
    # another language's word after `set` only, 40 name characters at most before it: the lines the scan for them
    # visits (_SIGN_HOT_LINES' `set`)
    if match.group(0)[0] in "wW" or (
            _FOREIGN_AT_END.search(match.string, match.start(), match.end("name")).start() - match.start() > 43):
        return match.group(0)
    value = match.group("value")
    if not value or value == REDACTED or is_benign_value(value, "password") or value.lower() in _ENCODINGS or (
            _name_among_names(value, match.group("name"))):
        return match.group(0)
    return _replace(match, "value")


def _method_call(match: re.Match[str]) -> str:
    """_METHOD_CALL's literal, judged as _quoted_call's, but a prompt's or a label's text kept (a blank in it, or
    a last `:` or `?`)."""
    value = match.group("value")
    if any(c.isspace() for c in value) or value.endswith((":", "?")):
        return match.group(0)
    return _quoted_call(match)


def _literal_as(match: re.Match[str], name: str, group: str = "value") -> str:
    """A literal its place in a call makes a secret (a key's passphrase, a key's bytes), judged as a value under
    `name`: kept when empty, already redacted or benign."""
    value = match.group(group)
    if not value or value == REDACTED or is_benign_value(value, name):
        return match.group(0)
    return _replace(match, group)


def _add_identity(match: re.Match[str]) -> str:
    return _literal_as(match, "passphrase")


def _key_bytes(match: re.Match[str]) -> str:
    return _literal_as(match, "secretKey", "value" if match.group("value") is not None else "value2")


def _list_pair(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if value == REDACTED or _NOT_SECRET_NAME.search(name) or is_benign_value(value, name) or not looks_random(value):
        return match.group(0)
    return _replace(match, "value")


_COMPARISONS = frozenset(("==", "!=", "===", "!==", "<=>"))


def _equals_call(match: re.Match[str]) -> str:
    group = "value" if match.group("value") is not None else "value2"
    value, name = match.group(group), match.group("name" if group == "value" else "name2")
    if not value or value == REDACTED or _NOT_SECRET_NAME.search(name) or is_benign_value(value, name) or (
            _lexer_comparison(value, name)):
        return match.group(0)
    return _replace(match, group)


def _quoted_compared(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if not value or value == REDACTED or _NOT_SECRET_NAME.search(name) or is_benign_value(value, name) or (
            match.group("q") == "`" and " " in value) or (
            # `auth` alone, a weak name: a generated value only
            not looks_random(value) if not _SECRET_CORE_RE.search(name) else _lexer_comparison(value, name)):
        return match.group(0)
    return _replace(match, "value")


def _cmp_call(match: re.Match[str]) -> str:
    group = "value" if match.group("value") is not None else "value2"
    value, name = match.group(group), match.group("name" if group == "value" else "name2")
    if not value or value == REDACTED or _NOT_SECRET_NAME.search(name) or is_benign_value(value, name) or (
            not looks_random(value) if not _SECRET_CORE_RE.search(name) else _lexer_comparison(value, name)):
        return match.group(0)
    return _replace(match, group)


def _short_named(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    words = _IDENT_WORDS.findall(name)
    if not words or words[-1].lower() not in ("pw", "cred") or REDACTED in value or _NOT_SECRET_NAME.search(name) or (
            _hash_name(name) or is_benign_value(value, name) or not looks_random(value)):
        return match.group(0)
    return _replace(match, "value")


# A literal decoded where a secret's name is given it (`const DB_PASS = Buffer.from('cGFz…', 'base64')`, `password =
# base64.b64decode("…")`, `atob('…')`, C#'s `Convert.FromBase64String("…")`, `bytes.fromhex("…")`): the secret
# written encoded, judged as the literal would be under that name. The call is found first, the name in the 160
# characters before it (a name pattern tried at every letter of a long line costs more than a call's word).
_DECODE_CALL = re.compile(
    r"(?:\bBuffer\.from|\batob|\b(?:urlsafe_|standard_)?b64decode|\bdecodebytes|\b(?:strict_|urlsafe_)?decode64"
    r"|\bFromBase64String|\bbase64_decode|\bDecodeString|\bgetDecoder\(\)\.decode|\bfromhex|\bunhexlify|\bhex2bin)"
    r"\(\s*b?(?P<q>[\"'`])(?P<value>[A-Za-z0-9+/=_-]{8,400})(?P=q)")
_DECODE_HINTS = ("buffer.from(", "atob(", "b64decode(", "decodebytes(", "decode64(", "frombase64string(",
                 "base64_decode(", "decodestring(", "getdecoder().decode(", "fromhex(", "unhexlify(", "hex2bin(")
_NAME_BEFORE_CALL = re.compile(
    r"(?P<name>[A-Za-z_$][\w$.-]*)[\"'\]]?\s*(?::=|=>|=|:)\s*(?:await\s+|new\s+)?"
    # (inside another call or two: `Encoding.UTF8.GetString(Convert.FromBase64String("…"))`)
    r"(?:[A-Za-z_$][\w$.]*\(\s*){0,2}(?:[A-Za-z_$][\w$]*\.)*$")


def _decoded_literal(match: re.Match[str]) -> str:
    line = match.string
    name = _NAME_BEFORE_CALL.search(line, max(0, match.start() - 160), match.start())
    value = match.group("value")
    if name is None or REDACTED in value or _name_tier(name["name"]) != 2 or (
            is_benign_value(value, name["name"]) or _hash_name(name["name"])):
        return match.group(0)
    return _replace(match, "value")


# a pass as a step of a process, not a password (`first_pass`, `render_pass`, `boarding_pass`)
_PASS_STEP = frozenset("first second third last next prev previous final single double multi render shader boarding "
                       "one two each every".split())


# ... and the word before `pass` that names an account or a service whose password it is (`db_pass`, `USER_PASS`,
# `$smtp_pass`, `keyPass`): a password's name, its value judged as under `password` (a weak one is a password still,
# the twelfth round's policy), where `test_pass`, `shadow_pass` or `x_pass` keep needing a password's look.
_PASS_HOLDERS = frozenset(
    "db database user usr username admin root sa sys system mysql mariadb pg postgres postgresql psql redis mongo "
    "mongodb smtp mail email imap ftp sftp ldap bind login account acct proxy ssh sudo vnc wifi wlan rabbit rabbitmq "
    "amqp mq mssql sql oracle keystore truststore store key master app api service svc auth basic http web jdbc kafka "
    "elastic cert pfx jks".split())


def _pass_tier(words: list[str]) -> int | None:
    """A name's words ending in `pass` after another: 2 after an account's word (_PASS_HOLDERS), 0 after a step's
    (_PASS_STEP), else 1; None for any other name. Free text's _pass_named and parsed settings' _name_tier read it."""
    if len(words) < 2 or words[-1] != "pass":
        return None
    return 0 if words[-2] in _PASS_STEP else 2 if words[-2] in _PASS_HOLDERS else 1


def _pass_named(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    words = [w.lower() for w in _IDENT_WORDS.findall(name)]
    if re.fullmatch(r"(?i)pass[0-9]{1,2}", name):  # a numbered password (`pass2`: a form's confirmation field)
        words = ["numbered", "pass"]
    tier = _pass_tier(words)
    if not tier or REDACTED in value or _NOT_SECRET_NAME.search(name) or _hash_name(name):
        return match.group(0)
    if tier == 2:
        kept = value.lower() in _VERDICT_WORDS or is_benign_value(value, "password")
    else:
        kept = len(value) < 8 or is_benign_value(value, name) or not (
            looks_random(value) or _password_like(value) or _mixed_password(value))
    return match.group(0) if kept else _replace(match, "value")


def _mixed_password(value: str) -> bool:
    """Twelve characters or more with no blank, holding capitals, small letters, digits and a sign other than a
    path's or a name's (`.`, `_`, `/`, `:`, `-`: `Some.Path/File1` is none), as `f#a};!y~7VBcu<&F`: a generated
    password, whatever signs it has (_password_like turns down `;` and `,`, a DSN's)."""
    return len(value) >= 12 and not re.search(r"\s", value) and all(
        re.search(c, value) for c in (r"[A-Z]", r"[a-z]", r"[0-9]", r"[^A-Za-z0-9._/:-]"))


# A getter under a secret's name that returns a literal (`getSecret: () => '…'`, `const apiKey = () => "…"`,
# `get_token = async () => '…'`): an arrow function's body is the value the name holds.
_ARROW_REST = (r"[\"']?\s*(?::|=)\s*(?:async\s+)?\(\s*\)\s*=>\s*"
               r"(?P<q>[\"'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)")
_ARROW_RETURN = re.compile(r"(?i)(?<![\w.$@-])(?P<name>" + _SECRET_NAME + ")" + _ARROW_REST)
# (what it needs: an empty arrow function's literal, found from its `(` (a literal first character re scans for), then
# the pattern from the name's secret word on, without the name's prefix that the whole pattern tries lazily at every
# letter of a line: 2.7 s over 9 MB of minified JavaScript)
_ARROW_OPEN = re.compile(r"\(\s*\)\s*=>\s*[\"'`]")
_ARROW_HINT = re.compile(r"(?i)" + _SECRET_CORE + r"[\w.$@-]*" + _ARROW_REST)


def _arrow_return(match: re.Match[str]) -> str:
    # (judged as _alt_assign's literal: a plain word is a getter's default or a label, `() => 'loading'`)
    value, name = match.group("value"), match.group("name")
    if not value or REDACTED in value or _NOT_SECRET_NAME.search(name) or is_benign_value(value, name) or (
            _PLAIN_WORD.fullmatch(value)) or (match.group("q") == "`" and (" " in value or "${" in value)):
        return match.group(0)
    return _replace(match, "value")


# An environment assignment as an item of a YAML flow list, after a comma (`command: [ "sh", "-c", export,
# API_KEY=…]`, `args: [--debug, DB_PASSWORD=…]`): judged as _ENV_ASSIGN's; only on a line that opens a flow list
# under a YAML key or a list item (`key: [`, `- [`), outside parentheses, so a call's keyword argument (`f(a,
# password=pw)`, `[dict(run_id=r, key=tag) for …]`) is none.
_FLOW_LIST_LINE = re.compile(r"[ \t]*(?:-[ \t]*|[\w.-]+:[ \t]*)\[")
_FLOW_ASSIGN = re.compile(
    r"(?<=,)(?P<head>[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_][\w.-]*)=)(?P<v>[^\s,\[\]\"'`;|&()\\]+)(?=[ \t]*[,\]])")


def _flow_assign(match: re.Match[str]) -> str:
    value, name = match.group("v"), match.group("name")
    before = match.string[:match.start()]
    if before.count("(") != before.count(")") or REDACTED in value or not _env_secret_name(name) or (
            _env_value_kept(value, name)) or value.startswith("$"):
        return match.group(0)
    return _replace(match, "v")


# A quoted label of several words ending in `Key` (`"Mailgun Secret Key": "…"`, `'Stripe API Key' => '…'`): the
# words joined make a secret's name (_name_tier 2: `Secret Key`, `API Key`, `Access Key`; not `Public Key`, `Primary
# Key`); its literal is a secret when it looks generated (a label's value is often a translation or a help text).
_LABEL_KEY = re.compile(
    r"(?P<lq>[\"'])(?P<label>[A-Za-z][\w.-]*(?:[ \t][\w.-]+)*[ \t](?i:key))(?P=lq)[ \t]*(?::|=>|=)[ \t]*"
    r"(?P<q>[\"'])(?P<value>[^\"'\\\n]+)(?P=q)")


def _label_key(match: re.Match[str]) -> str:
    value, label = match.group("value"), match.group("label")
    name = re.sub(r"[ \t]+", "_", label)
    if REDACTED in value or _name_tier(name) != 2 or is_benign_value(value, name) or not (looks_random(value, 16) or (
            # (a long run of letters and digits that looks_random reads as words: `key-3ax6xnjp29jd6fds4gc373sgvjxteol0`)
            len(value) >= 24 and _TOKEN_CHARS.fullmatch(value) and re.search(r"[0-9]", value) and (
                re.search(r"[A-Za-z]", value)) and _entropy(value) >= 4.0)):
        return match.group(0)
    return _replace(match, "value")


def _basic_plain(match: re.Match[str]) -> str:
    value = match.group("value")
    if REDACTED in value or _URL_PASSWORD_HOLE.fullmatch(value) or _TOKEN_PLACEHOLDER.search(value) or (
            _REFERENCE_OR_PLACEHOLDER.match(value)):
        return match.group(0)
    return _replace(match, "value")


def _auth_bare(match: re.Match[str]) -> str:
    value = match.group("value")
    if REDACTED in value or _TOKEN_PLACEHOLDER.search(value) or _REFERENCE_OR_PLACEHOLDER.match(value):
        return match.group(0)
    if match.group("scheme").lower() == "bearer":
        return _replace(match, "value") if looks_random(value) and not is_benign_value(value) else match.group(0)
    try:
        pair = base64.b64decode(value, validate=True).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return match.group(0)
    user, colon, password = pair.partition(":")
    if not (colon and user and password and pair.isprintable()) or _template_pair(user, password):
        return match.group(0)
    return _replace(match, "value")


def _hmac_key(match: re.Match[str]) -> str:
    value = match.group("value")
    if REDACTED in value or _TOKEN_PLACEHOLDER.search(value) or is_benign_value(value, "hmac_key") or re.fullmatch(
            r"(?i)(?:my|some|the|a)?[_-]?(?:secret|token|key|password|hmac)s?", value):
        return match.group(0)  # (a sample's name run together: `'mytoken'`)
    return _replace(match, "value")


def _generated_under_secret_name(name: str, value: str) -> bool:
    """A secret's name (tier 2) holding a value that looks generated and is no benign one: how a value read apart
    from its name's usual `name = "…"` form is judged (_NEXT_LINE_VALUE's, _WRAPPED_LITERAL's)."""
    return _name_tier(name) == 2 and looks_random(value) and not is_benign_value(value, name)


def _char_array(match: re.Match[str]) -> str:
    joined = "".join(c[1:-1] for c in re.findall(_CHAR_ONE, match.group("chars")))
    if "\\" in joined or '"' in joined or not _redacted_as_assignment(match.group("name"), joined):
        return match.group(0)
    return match.string[match.start():match.start("chars")] + REDACTED + match.string[match.end("chars"):match.end()]


def _wrapped_literal(match: re.Match[str]) -> str:
    name, value = match.group("name"), match.group("value")
    if not _generated_under_secret_name(name, value):
        return match.group(0)
    return _replace(match, "value")


def _bearer_literal(match: re.Match[str]) -> str:
    value = match.group("value")
    if REDACTED in value or not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value) or (
            _TOKEN_PLACEHOLDER.search(value) or _REFERENCE_OR_PLACEHOLDER.match(value) or is_benign_value(value)):
        return match.group(0)
    return _replace(match, "value")


def _weak_quoted(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if REDACTED in value or _NOT_SECRET_NAME.search(name) or _hash_name(name) or is_benign_value(value, name) or not (
            looks_random(value) or _UUID.fullmatch(value)):
        return match.group(0)
    return _replace(match, "value")


def _glued_pair(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if REDACTED in value or not (re.search(r"[0-9]", value) and re.search(r"[A-Za-z]", value)) or (
            is_benign_value(value, name)):
        return match.group(0)
    return _replace(match, "value")


def _cred_ctor(match: re.Match[str]) -> str:
    value = match.group("value")
    if not value or REDACTED in value or is_benign_value(value, "password"):
        return match.group(0)
    return _replace(match, "value")


def _password_like(value: str) -> bool:
    """A literal given by position that looks like a password: six characters or more, letters with digits or
    signs among them (`p4ssw0rd`, `Tr0ub4dor&3`), no blank, dot, slash, colon, `=`, `,` or `;` (a host, a path, a
    DSN, a user's DN), not a plain word (`mydb`, `admin123`)."""
    return len(value) >= 6 and not re.search(r"[\s./:\\=,;]", value) and re.search(r"[A-Za-z]", value) is not None and (
        re.search(r"[0-9!@#$%^&*+~?]", value) is not None) and not _PLAIN_WORD.fullmatch(value) and (
        not is_benign_value(value, "password"))


def _connect_call(match: re.Match[str]) -> str:
    args = match.group("args")
    out, at, changed = [], 0, False
    for k, m in enumerate(_CALL_ARG.finditer(args)):
        if m.end() == m.start():
            break
        if k and m.group("value") and REDACTED not in m.group("value") and _password_like(m.group("value")) and (
                "=" not in args[args.rfind(",", 0, m.start()) + 1:m.start()]):  # `user='…'`: a named argument's name
            out.append(args[at:m.start("value")] + REDACTED)
            at, changed = m.end("value"), True
    if not changed:
        return match.group(0)
    out.append(args[at:])
    start = match.start("args") - match.start()
    return match.group(0)[:start] + "".join(out) + match.group(0)[match.end("args") - match.start():]


def _spaced_pair(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    # (a word of three letters or fewer is a flag's value there: `secret=no`, `ssl=on`)
    if REDACTED in value or _NOT_SECRET_NAME.search(name) or is_benign_value(value, name) or not (
            match.group("pre") or match.group("post") or (match.group("sp") and looks_random(value))) or (
            len(value) <= 3 and value.isalpha()):
        return match.group(0)
    return _replace(match, "value")


def _quoted_env(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    # the first of `;`-separated pairs (`"password=:password;user=:user;"`): its value ends at the `;`; also at a
    # `&` when what comes before it is a placeholder or a bind parameter (`"password=?&login=a"`; a word there,
    # `"token=abcdefghij&user=admin"`, is a value)
    head, sep, rest = re.match(r"([^;&]*)([;&]?)(.*)", value).groups()
    if value == REDACTED or _NOT_SECRET_NAME.search(name) or not _env_secret_name(name) or (
            is_benign_value(value, name)) or (sep and "=" in rest and (
                is_benign_value(head, name) if sep == ";" else _REFERENCE_OR_PLACEHOLDER.match(head))):
        return match.group(0)
    return _replace(match, "value")


# A weak name's unquoted value, alone on its line (`klipfolio_key=…`, `box-key = …`, YAML's `aws_key: …`, Go's
# `algolia_key := …`): a
# secret only when the value looks generated, as for _WEAK_QUOTED (never a uuid here: `cache_key: <uuid>`).
_WEAK_START = re.compile(r"[ \t]*(?:export[ \t]+|-[ \t]+)?[\"']?[A-Za-z_$][\w$.-]*[\"']?[ \t]*[=:]")
# (a name of 100 characters at most: unbounded, each start inside a long run of name characters was read to the
# run's end, quadratic on a long value under `token_ttl: 1h1h1h…`, 30 s at 60,000 characters)
_WEAK_UNQUOTED = re.compile(
    r"(?P<lead>[ \t]*(?:export[ \t]+|-[ \t]+)?[\"']?)"
    r"(?P<name>[A-Za-z_$][\w$.-]{0,100}?(?:[a-z0-9](?:Key|Token|KEY|TOKEN)"
    r"|[_.-](?:KEY|TOKEN|key|token|Key|Token)))(?P<op>[\"']?[ \t]*(?::=|=|:)[ \t]*)"
    r"(?P<value>[A-Za-z0-9+/=_.~-]{16,200})(?P<end>[ \t]*,?[ \t]*\r?)$"
)


def _weak_unquoted(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if REDACTED in value or _name_tier(name) == 0 or _hash_name(name) or _UUID.fullmatch(value) or not _LABEL_NOT.isdisjoint(
            w.lower() for w in _IDENT_WORDS.findall(name)) or (
            not looks_random(value)) or is_benign_value(value, name):
        return match.group(0)
    return _replace(match, "value")


# A JSON or a dict literal's entry named just "key" (`"key": "2Tm6cds…"`): the bare word is a dictionary's key far
# more often than a secret (see the module's docstring), so its value is one only when it is plainly generated, as
# under any name in a parsed config (_ordinary_but_random: long, three character classes, high entropy, no hex).
_BARE_KEY_PAIR = re.compile(
    r"""(?P<kq>["'])(?i:key)(?P=kq)[ \t]*:[ \t]*(?P<q>["'])(?P<value>[A-Za-z0-9+/=_.~-]{20,200})(?P=q)""")


def _bare_key_pair(match: re.Match[str]) -> str:
    value = match.group("value")
    if REDACTED in value or not _ordinary_but_random("key", value):
        return match.group(0)
    return _replace(match, "value")


# A value under a secret's label on a line of its own, no `=` or `:` between (`Slack token
# 4b9c…`, `API key: …` aside, a note's `boxSECRET 3f9…`, `PRIVATE TOKEN …`): up to four words of label, the
# last ending in a secret's word, then the value, generated-looking, last on the line. Hex only under a secret's
# name (`primary key <sha256>` is a digest); never under a public key's or a hash's name. A comment's, a bullet's or
# a numbered list item's mark may come first (`- API key: …`, `1. api key: …`).
_LABELLED = re.compile(
    r"(?i)(?P<lead>[ \t]*(?:(?:#|//|--|\*|-|[0-9]{1,3}[.)])[ \t]*)?)(?P<name>(?:[A-Za-z][\w.-]*[ \t]+){0,3}"
    r"(?:[A-Za-z][\w.-]*?)?(?:secret|token|key|passw(?:or)?d|pwd))(?P<op>[ \t]*[=:][ \t]*|[ \t]+)(?P<value>[A-Za-z0-9+/=_.~-]{16,200})(?P<end>[ \t]*\r?)$"
)
# The same judgement for a value inside a line of prose, a log or a command (`login with password: Zq8f… for it`,
# `user=alice password=Zq8f… action=login`, `API_TOKEN=… ./deploy.sh`): a secret's word glued to `=` or `: `, the
# value followed by a blank, `;`, `,`, `&`, `)` or a closing tag (a report's `<span>apikey: azhz…=</span>`; what
# ends the line is _LABELLED's).
_LABELLED_MID = re.compile(
    r"(?i)(?<![\w.$@/-])(?P<name>(?:[A-Za-z][\w.-]{0,40}?)?(?:secret|token|key|passw(?:or)?d|pwd))(?P<op>=|:[ \t]+)"
    r"(?P<value>[A-Za-z0-9+/=_.~-]{16,200})(?=[ \t]*(?:[;,&)]|</)|[ \t]+\S)"
)
# A value in a code span after a secret's label in prose or Markdown (`- API key: `S3cr3tInPr0j3ctSp3c``, `Example API
# key for testing: `…``, `the token is `…``): the label's words up to the secret's word, at most three plain words
# after it, then `:`, `=` or `is`, judged as _LABELLED_MID's value is.
_LABELLED_CODE = re.compile(
    r"(?i)(?<![\w.$@/`-])(?P<name>(?:[A-Za-z][\w.-]*[ \t]+){0,3}(?:[A-Za-z][\w.-]*?)?"
    r"(?:secret|token|key|passw(?:or)?d|pwd))"
    r"(?:[ \t]+[a-z]{2,12}){0,3}(?P<op>[ \t]*[=:][ \t]*|[ \t]+is[ \t]+)`(?P<value>[A-Za-z0-9+/=_.~-]{8,200})`"
)
_LABELLED_MID_HINT = re.compile(r"(?i)(?:secret|token|key|passw(?:or)?d|pwd)(?:=|:[ \t])[A-Za-z0-9+/=_.~-]{16}")
# A database's or a dictionary's key, a public one, a digest's: no secret under such a name whatever its value.
_LABEL_NOT = frozenset("public pub publishable sort primary foreign partition cache lookup row index hash hashed checksum "
                       "digest sha md5 fingerprint commit id uuid".split())


def _labelled(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    words = {w.lower() for w in _IDENT_WORDS.findall(name)}
    tier = _name_tier(name.split()[-1]) if name.split() else 0
    if REDACTED in value or tier == 0 or words & _LABEL_NOT or _NOT_SECRET_NAME.search(name) or (
            not looks_random(value)) or is_benign_value(value, name) or (
            _HEX_ONLY.fullmatch(value) and _name_tier(name) < 2) or not re.search(r"[0-9]", value):
        return match.group(0)
    return _replace(match, "value")


_ANNOTATION_AFTER = re.compile(r"[ \t]*[,)|=\]]")


def _labelled_mid(match: re.Match[str]) -> str:
    """_labelled's judgement; under a password's or a secret's own name, a value of letters and digits
    that is not words and a number (`Password123`) is one too, random-looking or not (`Zqwyla4szJxhvI3y`)."""
    if match.group("op")[0] == ":" and _ANNOTATION_AFTER.match(match.string, match.end()):
        return match.group(0)  # a parameter's type (`key: Ed25519PrivateKey | None`, `private_key: ed25519.Key,`)
    out = _labelled(match)
    if out != match.group(0):
        return out
    value, name = match.group("value"), match.group("name")
    low = name.lower()
    if (("passw" in low or "pwd" in low or "secret" in low) and REDACTED not in value and _name_tier(name) == 2
            and re.search(r"[0-9]", value) and re.search(r"[A-Za-z]", value) and not _NOT_SECRET_NAME.search(name)
            and not all(_SLUG_PART.fullmatch(p) for p in re.split(r"[_.:/~+=-]+", value) if p)
            and {w.lower() for w in _IDENT_WORDS.findall(name)}.isdisjoint(_LABEL_NOT)
            and not is_benign_value(value, name)):
        return _replace(match, "value")
    return out


# A password written down in prose, a note, a ticket or a log, its name glued to it (`ID:master,PW:dipPr10Gg!`,
# `user=master password=Zx9!pq`, `ssh host (pwd:IhqSb1Gg)`, `SECRET KEY:AIhq5Xyb1Gga9Q3`, `PSWD:=…`): a password's
# word (misspelt too), or `pw`, `pass` or `token` as a word of their own, then `:`, `=`, `:=` or `=>` glued to it,
# then an unquoted value up to a blank, a bracket, a comma, a semicolon, a quote, `</` or an HTML entity. Shorter
# than _LABELLED_MID's 16 and signs allowed; judged as a password by position is (_password_like), with a digit, and
# under a short or a weak name with mixed case or a sign as well.
_PROSE_PAIR = re.compile(
    r"(?i)(?:(?<=[\s(\[{,;/|>-])|^)"
    r"(?P<name>(?:[a-z0-9]{1,12}[ _-]?){0,3}(?:pa?s{1,2}w(?:o?r)?d|passphrase|secret(?:[ _-]?key)?)[a-z0-9]{0,8}"
    r"|(?:[a-z0-9]{1,12}[ _-])?(?:pwd?|pass|token)|pwd?|pass|token)"
    # (an HTML attribute's text quotes with entities: `password: &quot;…&quot;`)
    r"(?P<op>(?::=|=>?|:)[ \t]*(?:&quot;)?)"
    r"(?P<value>[^\s\"'`,;()<>\[\]{}$%&|\\*=](?:(?!&(?:quot|amp|lt|gt);)[^\s\"'`,;()<>\[\]{}|\\]){5,63})"
    r"(?=$|[\s,;)>\]}|\"'`]|</|&(?:quot|amp|lt|gt);|/[A-Za-z ]{1,20}[:=])"
)
_PROSE_HINT = re.compile(r"(?i)(?:pa?s{1,2}w|passphrase|secret(?:[ _-]?key)?|pwd?|pass|token)[a-z0-9]{0,8}"
                         r"(?::=|=>?|:)[ \t]*(?:&quot;)?[^\s\"'`,;()<>\[\]{}$%&|\\*=][^\s\"'`,;()<>\[\]{}|\\]{5}")
_PROSE_STRONG = re.compile(r"(?i)pa?s{1,2}w(?:o?r)?d|passphrase|secret")

# A macro or a variable set by a word, not an operator: an RPM spec's `%define PASSWORD "…"` / `%global token …`, a
# shell's or a batch file's `set password "…"`: judged as `name = "value"` on one line would be.
_SET_WORD = re.compile(
    r"(?im)^[ \t]*(?P<kw>%(?:define|global)|set)[ \t]+(?P<name>" + _SECRET_NAME + r")[ \t]+"
    r"(?:\"(?P<value>[^\"\n]+)\"|(?P<bare>[^\s\"'$%{(][^\s\"']*))[ \t]*\r?$")


def _set_word(match: re.Match[str]) -> str:
    group = "value" if match.group("value") is not None else "bare"
    value = match.group(group)
    if REDACTED in value or not _redacted_as_assignment(match.group("name"), value):
        return match.group(0)
    return _replace(match, group)


def _odd_case_word(value: str) -> bool:
    """A word and a number typed with its case flipped again and again (`FlUgeGeHeImEn01`): no identifier's
    camel case (`userPassword2` turns once or twice)."""
    return _PLAIN_WORD.fullmatch(value) is not None and re.search(r"[0-9]", value) is not None and len(
        re.findall(r"[a-z](?=[A-Z])|[A-Z](?=[a-z])", value)) >= 6


def _prose_pair(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if REDACTED in value or _NOT_SECRET_NAME.search(name) or value.lower().startswith(("http", "ftp", "file")) or (
            _TOKEN_PLACEHOLDER.search(value)):  # `glsa_YOUR_TOKEN_HERE_1234`
        return match.group(0)
    value = value.split("/")[0] if "/" in value and not _PROSE_STRONG.search(name) else value
    if not (_password_like(value) or _odd_case_word(value)) or not re.search(r"[0-9]", value) or (
            _IDENTIFIER.fullmatch(value) and (value.islower() or value.isupper())):
        return match.group(0)
    if not _PROSE_STRONG.search(name) and not (re.search(r"[a-z]", value) and re.search(r"[A-Z]", value)
                                                or re.search(r"[!@#$%^&*+~?]", value)):
        return match.group(0)
    start = match.start("value") - match.start()
    return match.group(0)[:start] + REDACTED + match.group(0)[start + len(value):]


# A pair whose name and value are apart (`{"key": "password", "value": "…"}`, `{name: "API_TOKEN", value: "…"}`):
# a secret's name in the name's field makes the value field's literal a secret.
_NAME_VALUE_PAIR = re.compile(
    r"(?i)(?P<kq>[\"']?)\b(?:key|name)(?P=kq)[ \t]*[:=][ \t]*(?P<nq>[\"'])(?P<name>[^\"'\n]{1,80})(?P=nq)[ \t]*,[ \t]*"
    r"(?P<vq>[\"']?)value(?P=vq)[ \t]*[:=][ \t]*(?P<q>[\"'])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"
)


def _name_value_pair(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if not value or REDACTED in value or _NOT_SECRET_NAME.search(name) or _name_tier(
            re.split(r"[.:/]", name)[-1]) != 2 or is_benign_value(value, name):
        return match.group(0)
    return _replace(match, "value")


# A multiple assignment of literals (Go's `const a, b string = "…", "…"`, `a, b := "…", "…"`, Python's
# `user, password = "…", "…"`): names and values paired by position.
_STR_LIT = r'"(?:\\.|[^"\\\n])*"' + r"|'(?:\\.|[^'\\\n])*'"
_MULTI_ITEM = _STR_LIT + r"|-?[\w.]+"
_MULTI_ASSIGN = re.compile(
    r"^(?P<lead>[ \t]*(?:(?:const|var|let)[ \t]+)?)(?P<names>[A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)+)"
    r"(?P<type>[ \t]+[\w.\[\]*]+)?(?P<op>[ \t]*:?=[ \t]*)"
    # the values literals, or among them numbers and names (`a, secret, b = 1, "…", 2`); a comment after them
    r"(?P<values>(?:" + _MULTI_ITEM + r")(?:[ \t]*,[ \t]*(?:" + _MULTI_ITEM + r"))+)"
    r"(?P<end>[ \t]*;?[ \t]*(?:(?:#|//)[^\n]*)?\r?)$"
)
_STR_LIT_ONE = re.compile(_MULTI_ITEM)


def _multi_assign(match: re.Match[str]) -> str:
    names = [n.strip() for n in match.group("names").split(",")]
    lits = _STR_LIT_ONE.findall(match.group("values"))
    if len(names) != len(lits):
        return match.group(0)
    out, changed = [], False
    # with names or numbers among the values (`key, estimator = "best_estimator_", self.best_estimator_`), only a
    # name that would hold a secret in a single assignment (_QUOTED_ASSIGN's: `key` alone is none there)
    mixed = any(lit[:1] not in ("'", '"') for lit in lits)
    for name, lit in zip(names, lits):
        value = lit[1:-1] if lit[:1] in ("'", '"') else ""
        if value and REDACTED not in value and _name_tier(name) == 2 and not _NOT_SECRET_NAME.search(name) and not (
                is_benign_value(value, name)) and not (mixed and not _SECRET_CORE_RE.search(name)):
            lit, changed = f"{lit[0]}{REDACTED}{lit[0]}", True
        out.append(lit)
    if not changed:
        return match.group(0)
    return (f"{match.group('lead')}{match.group('names')}{match.group('type') or ''}{match.group('op')}"
            f"{', '.join(out)}{match.group('end')}")


# A name (`api_key = self.api_key`, `token = token_or_none`): code, unless it looks generated.
_INI_IDENT = re.compile(r"[A-Za-z_][\w.]*")
# Words of a sentence that a passphrase seldom holds: `password = see the vault` is prose.
_INI_PROSE = frozenset("the a an your from see of to in for with is are this that below above here there use "
                       "set by as be it".split())


# A word and three digits or more (`password = fall123`, `summer2020`): a password's habit, seldom a variable's
# name (`arg1`, `tmp2`), and what `password=fall123` unspaced is redacted as already.
_WORD_DIGITS = re.compile(r"[A-Za-z]{3,}[0-9]{3,}")
# Letters of one case and digits, 24 characters or more, no separator, digits in four places or more
# (`aws_secret_access_key = z2rpgs5uit782eapz5l1z0y2lurtsyyk6hcfozlb`, an AWS credentials file's spaced line):
# generated, not a name, though looks_random reads its letter runs as words (a name's digits are one or two
# groups: `arg1`, `sha256sum`, `utf8_to_latin1`). Hex alone is left to looks_random (a 40-digit hex is a git sha).
_ALNUM_RUN = re.compile(r"[a-z0-9]{24,}|[A-Z0-9]{24,}")
_DIGIT_GROUP = re.compile(r"[0-9]+")


def _scattered_digits(value: str) -> bool:
    return (_ALNUM_RUN.fullmatch(value) is not None and not _HEX_ONLY.fullmatch(value)
            and len(_DIGIT_GROUP.findall(value)) >= 4 and _entropy(value) >= 3.5)


# A line of nothing but unquoted statements ended by `;` (`FacebookAppSecret = ce3f…;`, `FacebookAppId = 2947…;
# FacebookAppSecret = ce3f…;`): code's form (_INI_CODE's trailing `;`), where a bare word is a name, not a value
# (`password = other_password;`, `token = cfg.token;`), so a value is a secret here only when it looks generated
# (looks_random) and holds a digit, under a secret's name.
_STATEMENTS_LINE = re.compile(
    r"^" + _DIFF_MARK + r"[ \t]*(?:[A-Za-z_$][\w$]*[ \t]*=[ \t]*[^\s;\"'`=(){}\[\]<>,]+;[ \t]*)+\r?$")
_STATEMENT = re.compile(r"(?P<name>[A-Za-z_$][\w$]*)(?P<op>[ \t]*=[ \t]*)(?P<value>[^\s;\"'`=(){}\[\]<>,]+)(?=;)")


def _statement(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if REDACTED in value or _name_tier(name) != 2 or not re.search(r"[0-9]", value) or not looks_random(value) or (
            _DOTTED.fullmatch(value)) or is_benign_value(value, name):
        return match.group(0)
    return _replace(match, "value")


def _ini_line(match: re.Match[str]) -> str:
    """A passphrase in a client config is words (`password = correct horse battery staple`):
    a phrase is a value here, where a line is nothing but `name = value`."""
    value, name = match.group("value").strip(), match.group("name")
    bare = _TRAILING_COMMENT.sub("", value)  # `secret_key = secret  # Compliant`: a name, then a comment
    if (value == REDACTED or _INI_CODE.search(value) or _NOT_SECRET_NAME.search(name) or (
            _INI_IDENT.fullmatch(bare) and not looks_random(bare) and not _WORD_DIGITS.fullmatch(bare)
            and not _scattered_digits(bare))
            or _NOT_A_VALUE.search(value)
            or _REFERENCE_OR_PLACEHOLDER.match(value) or _names_a_key(value, name) or _PUBLIC_OR_HASH.match(value)
            or _other_reference(value, name) or _PLACEHOLDER_RUN.search(value) or _file_name(bare)
            or (_is_phrase(value) and not _INI_PROSE.isdisjoint(value.lower().split()))
            or _ui_text(bare, label="." in name)):
        return match.group(0)
    return _replace(match, "value")


def _replace(match: re.Match[str], group: str) -> str:
    """The match with one group's text replaced by REDACTED."""
    if group == 0:
        return REDACTED
    start, end = match.span(group)
    whole = match.start()
    return match.group(0)[:start - whole] + REDACTED + match.group(0)[end - whole:]


def _xml_pair(match: re.Match[str]) -> str:
    name = match.group("n1") if match.group("n1") is not None else match.group("n2")
    group = "v1" if match.group("v1") is not None else "v2"
    value = match.group(group)
    if not value or value == REDACTED or _PLACEHOLDER.search(value) or _NOT_SECRET_NAME.search(name) or (
            is_benign_value(value, name)):
        return match.group(0)
    return _replace(match, group)


# A URL is no password or token (its own credentials are _URL_CRED's).
_URL_START = re.compile(r"[a-z][a-z0-9+.-]*://", re.I)
# (and one that turns it off: adduser's `--disabled-password USER`, `--no-password`)
_ASK_FLAG = re.compile(r"(?i)--(?:ask|prompt|disabled?|no)[_-]")


# An XML element's text under a secret's name (`<password>…</password>`, `<ns:ApiKey>…</ns:ApiKey>`).
# Blanks around the value are the element's layout (Maven's `<password>  …  </password>`), not the value.
_XML_ELEMENT = re.compile(r"<(?P<tag>[A-Za-z_][\w.:-]*)>[ \t]*(?P<value>[^<>\s]+)[ \t]*</(?P=tag)>")
# ... or under a secret's name in its `name` attribute (Android's `<string name="hockeyapp_key">…</string>`, a
# settings file's `<setting name="ApiToken">…</setting>`): read as that name's element.
_XML_NAMED = re.compile(r"""<(?P<tag>[A-Za-z_][\w.:-]*)[ \t][^<>]*?\bname[ \t]*=[ \t]*(?P<nq>["'])(?P<name>[^"'<>]{1,80})"""
                        r"""(?P=nq)[^<>]*>[ \t]*(?P<value>[^<>\s]+)[ \t]*</(?P=tag)>""")


# ... or an element whose whole text is an environment assignment (`<inlist>DB_PASSWORD=…</inlist>`, a CI file's
# `<env>API_TOKEN=…</env>`): the text judged as a line of its own (_redact_line), so `NAME=${VAR}` and a name with
# no secret's word stay.
_XML_ENV_TEXT = re.compile(r"(?P<open><(?P<tag>[A-Za-z_][\w.:-]*)(?:[ \t][^<>]*)?>)[ \t]*"
                           r"(?P<inner>[A-Za-z_][\w.-]*=[^<>\s]+)[ \t]*(?=</(?P=tag)>)")


def _xml_env_text(match: re.Match[str]) -> str:
    inner = match.group("inner")
    new = inner if REDACTED in inner else _redact_line(inner)
    if new == inner:
        return match.group(0)
    return match.string[match.start():match.start("inner")] + new + match.string[match.end("inner"):match.end()]


_DOC_TAGS = frozenset(("param", "typeparam", "exception"))
_DOC_COMMENT = re.compile(r"[ \t]*(?:///|\*|//!)")


def _xml_element(match: re.Match[str]) -> str:
    """Read as a parsed value is: any value under a secret's name (`password`), a random one under a name with
    "key" or "token" in it; never a placeholder, a reference, a type's name (`<Password>string</Password>`)."""
    named = "name" in match.re.groupindex
    if named and match.group("tag") in _DOC_TAGS and _DOC_COMMENT.match(match.string):
        return match.group(0)  # a doc comment's parameter (`/// <param name="token">Token.</param>`): its description
    name, value = (match.group("name") if named else match.group("tag")).rsplit(":", 1)[-1], match.group("value")
    words = [w.lower() for w in _IDENT_WORDS.findall(name)]
    # a bare `<key>` is a dictionary's key (a plist's `<key>username</key>`); an id names a secret (`UserSecretsId`)
    tier = 1 if words in (["key"], ["keys"]) else 0 if words and words[-1] in _ID_WORDS else _name_tier(name)
    if not tier or value == REDACTED or _NOT_A_VALUE.search(value) or is_benign_value(value, name) or (
            value.lower() in _PROSE_GLUE) or (
            tier == 1 and not looks_random(value)) or (
            # under a `name` attribute (a resource file's entries: `<string name="primary_key">`), a database's, a
            # sort's or a digest's key is no secret, as for _WEAK_UNQUOTED (an element of its own name stays as the
            # fifth round decided: `<cache_key>…random…</cache_key>` is redacted)
            named and tier == 1 and not _LABEL_NOT.isdisjoint(words)) or (
            # Android's string resource: a label (`<string name="loginscreen_password">Password:</string>`)
            named and match.group("tag") == "string" and _ui_text(value, label=True)):
        return match.group(0)
    return _replace(match, "value")


# A word of prose between two tags a sentence names (`// the value between <secret> and </secret>`): no element.
_PROSE_GLUE = frozenset("and or to then with vs versus of in is the a an".split())


# FileZilla's server password (`<Pass>…</Pass>`, `<Pass encoding="base64">…</Pass>` in sitemanager.xml and
# recentservers.xml): an element named exactly `Pass`, whose name holds no secret's word for _XML_ELEMENT. Its text
# is a password unless it is a verdict, a number or a placeholder (a test report's `<pass>true</pass>`, `<pass>3</pass>`).
_XML_PASS = re.compile(r"<(?P<tag>[Pp]ass|PASS)(?:[ \t]+encoding[ \t]*=[ \t]*\"base64\")?>[ \t]*(?P<value>[^<>\s]+)"
                       r"[ \t]*</(?P=tag)>")
# A name that says its password is a switch's (MySQL's `MYSQL_RANDOM_ROOT_PASSWORD=yes`, `MYSQL_ALLOW_EMPTY_PASSWORD`,
# `SKIP_PASSWORD`): a flag's word under it is the switch, no password.
_SWITCH_NAME = re.compile(r"(?i)(?:^|[_.-])(?:random|allow|empty|skip|require|enable|disable|generate)[_.-]")
# A flag's or a null's word: no password, wherever a short value is judged (_VERDICT_WORDS, _QUERY_KEPT).
_FLAG_WORDS = frozenset("true false yes no on off none null nil".split())
# A test's verdict or a flag's word under a `pass` key or element: no password.
_VERDICT_WORDS = _FLAG_WORDS | frozenset("ok pass passed passing fail failed failing failure skip skipped error pending "
                                         "todo".split())


def _xml_pass(match: re.Match[str]) -> str:
    """FileZilla's `<Pass>`: any text but a verdict, a number, a short or a benign value (_XML_PASS)."""
    value = match.group("value")
    if REDACTED in value or _pass_value_kept(value):
        return match.group(0)
    return _replace(match, "value")


def _pass_value_kept(value: str) -> bool:
    """A `pass` key's or element's value that is no password: under four characters, a number, a verdict's word, a
    placeholder or a reference."""
    return len(value) < 4 or value.isdigit() or value.lower() in _VERDICT_WORDS or _NOT_A_VALUE.search(value) is not None or (
        is_benign_value(value, "password"))


# A quoted key named exactly `pass` given a quoted value (an FTP client's config: .ftpconfig's and sftp-config's
# `"pass": "…"`, PHP's `'pass' => '…'`). `pass` alone is a keyword and a verdict too, so the value must look like a
# password: letters with digits or signs (`hunter22`), or generated. A plain word (`"pass": "fail"`), a boolean, a
# number, a path or a version stay, and Python's `pass` statement is never quoted.
_PASS_KEY = re.compile(r"(?P<nq>[\"'])(?i:pass)(?P=nq)[ \t]*(?::|=>|=)[ \t]*(?P<q>[\"'])(?P<value>[^\"'\n\\]{1,200})(?P=q)")


def _pass_key(match: re.Match[str]) -> str:
    """`"pass": "…"`: a value that looks like a password (_PASS_KEY)."""
    value = match.group("value")
    if REDACTED in value or _pass_value_kept(value) or not (looks_random(value) or _mixed_password(value) or (
            len(value) >= 6 and not re.search(r"[\s./:\\=,;]", value) and re.search(r"[A-Za-z]", value)
            and re.search(r"[0-9!@#$%^&*+~?]", value))):
        return match.group(0)
    return _replace(match, "value")


# WordPress's keys and salts (wp-config.php's `define('NONCE_SALT', '…')`, `define('LOGGED_IN_KEY', '…')`): a
# constant ending in `_KEY` or `_SALT` given to define(). `_SALT` is no secret's word, and `_KEY` alone a weak one
# whose value must look random, which WordPress's 64 letters, digits, signs and blanks never did. Only a generated
# value (_generated_salt): the sample file's `put your unique phrase here`, `define('CACHE_KEY', 'users')` stay.
_WP_SALT = re.compile(r"\b(?i:define)\(\s*(?P<nq>[\"'])(?P<name>[A-Z][A-Z0-9_]*_(?:KEY|SALT))(?P=nq)\s*,\s*"
                      r"(?P<q>[\"'])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)")


def _generated_salt(value: str) -> bool:
    """32 characters or more holding capitals, small letters, digits and signs, with at most three blanks: a
    generator's output (WordPress's secret-key service), not a phrase or a name."""
    return len(value) >= 32 and value.count(" ") <= 3 and all(
        re.search(c, value) for c in (r"[A-Z]", r"[a-z]", r"[0-9]", r"[^\w\s]"))


def _wp_salt(match: re.Match[str]) -> str:
    """A `define('…_KEY'|'…_SALT', '…')` whose value is generated (_WP_SALT)."""
    value = match.group("value")
    if REDACTED in value or not _generated_salt(value):
        return match.group(0)
    return _replace(match, "value")


# A password in a URL's query under seven characters (`jdbc:mysql://h/db?user=root&password=toor`): the rule
# table's url_query_secret takes eight and more; kept: a sample word, a flag's digit, a reference or placeholder,
# a metasyntactic word (SonarJS's `https://example.com?password=foo`, a compliant case).
_QUERY_PASSWORD = re.compile(r"(?i)[?&](?:password|passwd|pwd)=(?P<value>[^&\s\"'#<>`;=]{1,7})(?=[&\s\"'#<>`;]|$)")
_QUERY_KEPT = _FLAG_WORDS | frozenset("empty foo bar baz qux dummy example sample".split())


def _query_password(match: re.Match[str]) -> str:
    """A short `?password=`/`&password=` value of a query after a URL's `://` on the line (_QUERY_PASSWORD)."""
    value, line = match.group("value"), match.string
    if (REDACTED in value or not 0 <= line.find("://") < match.start() or value[:1] in "{$%[(*"
            or value.lower() in _SAMPLE_PASSWORDS or value.lower() in _QUERY_KEPT or len(value) < 3
            or _PLACEHOLDER_RUN.fullmatch(value) or set(value) <= {"x", "X", "*", "."}):
        return match.group(0)
    return _replace(match, "value")


# A Spring (or Quarkus, Micronaut) property holding a database's password, a `.properties` line
# (`spring.datasource.password = root`, `spring.datasource.password='QuotedSpringPassword'`, `jdbc.password=…`): the
# key names it whatever the value's look; kept: empty, a sample word, `${…}`, a jasypt `ENC(…)`, a path or a URL,
# code (`self.`/`this.` first, a call or a `;` in the value: _INI_CODE).
_PROPS_PASSWORD = re.compile(
    r"^(?P<head>[ \t]*(?:(?:spring|quarkus|micronaut)\.(?:[a-z0-9-]+\.)*|(?!(?:self|this|cls|me)\.)(?:[a-z0-9-]+\.)*"
    r"(?:datasource|jdbc|r2dbc)\.)"
    r"password[ \t]*[=:][ \t]*)(?P<q>['\"]?)(?P<value>[^\s'\"](?:[^\n]*[^\s'\"])?)(?P=q)[ \t]*\r?$")


def _props_password(match: re.Match[str]) -> str:
    """A Spring-style password property's value (_PROPS_PASSWORD), unless a reference (a secret store's too: AWS
    Secrets Manager's `arn:aws:secretsmanager:…`, `@Microsoft.KeyVault(…)`) or a sample word (`xxx`)."""
    value = match.group("value")
    if (REDACTED in value or value[:1] in "{$%<" or value.startswith(("ENC(", "/", "classpath:", "file:", "arn:",
                                                                        "@Microsoft.KeyVault("))
            or _X_RUN.fullmatch(value)
            or "://" in value or value.lower() in _SAMPLE_PASSWORDS or _PLACEHOLDER_RUN.fullmatch(value)
            or _INI_CODE.search(value)):  # code's (`this.jdbc.password = pw;`, `… = getPassword()`)
        return match.group(0)
    return _replace(match, "value")


_ESCAPED_END = re.compile(r"(?:\\[nrt])+$")
_X_RUN = re.compile(r"x{3,}|X{3,}")


# A flag's quoted value that only says where one goes: `--password "<password>"`, `"..."`, an escaped variable
# (`"\$PASSWORD"`, `echo`ed into a script that reads it later).
_FLAG_HOLE = re.compile(r"<[^<>\n]+>|\.{3}|…|\\\$\{?[A-Za-z_]\w*\}?")


def _cli_flag(match: re.Match[str]) -> str:
    group = "qv" if match.group("qv") is not None else "v"
    value = match.group(group)
    # (a prose word before a string's escaped line end: `"- Providing the --api-token parameter\n"`; a separator
    # alone: a console signature's `{--with-secret : Generate …}`, the colon before its description; a string's end
    # and a concatenation read as a quoted value: `'--password='.$connection['password']`)
    if value == REDACTED or _ESCAPED_END.sub("", value).lower() in _PROSE_AFTER_FLAG or _URL_START.match(value) or (
            value in (":", "|", "-")) or not value.strip(".\u2026") or (
            group == "qv" and re.match(r"\s*[.+]\s*(?:\$|[A-Za-z_][\w.]*\s*[(\[])",
                                                                      value)) or (
            group == "qv" and _FLAG_HOLE.fullmatch(value)) or (
            # a flag that asks for the secret takes none (`wget --ask-password URL`), nor one turning it off
            _ASK_FLAG.search(match.group("flag"))) or (
            group == "v" and _METAVAR.fullmatch(value.rstrip("])}"))) or (
            _NOT_SECRET_NAME.search(match.group("flag"))) or (
            group == "v" and value in _FLAG_TYPES and _FLAG_TYPE_GAP.match(match.string, match.end())) or (
            "onnection" in match.group("flag") and "=" in value) or _MOUNT_SPEC.fullmatch(value) is not None or (
            # a key's file after a key's flag (`kubeseal --recovery-private-key k8s/main.key`)
            _file_name(value)) or (
            _PLACEHOLDER_RUN.search(value) or _TOKEN_PLACEHOLDER.search(value)) or (
            # a prefix before a placeholder (`--token=sha256~<token>`, `--key=ak_${KEY}`)
            group == "v" and match.string[match.end():match.end() + 1] in ("<", "{", "$")):
        return match.group(0)
    return _replace(match, group)


def _npmrc(match: re.Match[str]) -> str:
    group = next(g for g in ("value", "bare", "spaced") if match.group(g) is not None)
    value = match.group(group)
    if value == REDACTED or (group == "spaced" and not (looks_random(value) or _base64_pair(value))):
        return match.group(0)
    return _replace(match, group)


def _base64_pair(value: str) -> bool:
    """Base64 of `user:password`, as an .npmrc's `_auth` is (`YWRtaW46YWRtaW4=`): it decodes to printable ASCII
    with a colon between two non-empty parts and no blank. Too regular for looks_random (`admin:admin`), too exact
    for an identifier (`self._auth_fn`, `SomeLongName` decode to no such text)."""
    try:
        raw = base64.b64decode(value, validate=True).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return False
    user, colon, password = raw.partition(":")
    return bool(colon and user and password) and raw.isprintable() and " " not in raw


# A trailing comment (`gss_creds: bool | None  # Delegate credentials`): what is checked is before it.
# (from a blank run's first blank only: tried from each blank, a long run inside a value was read again and again)
_TRAILING_COMMENT = re.compile(r"(?<![ \t])[ \t]+#.*$")
_COMMENT_ONLY = re.compile(r"#(?:[ \t]|$)")


def _config_line(match: re.Match[str]) -> str:
    value = _TRAILING_COMMENT.sub("", match.group("value")).strip()
    # (a YAML key with no value, only a comment after it: oauth2-proxy's `secretKeys:  # Exclude client-secret`)
    if match.group("op")[0] == ":" and _COMMENT_ONLY.match(value) or _NOT_A_VALUE.search(value) or (
            _NOT_SECRET_NAME.search(match.group("name"))) or is_benign_value(value, match.group("name")) or (
            _url_with_hole(value)):
        return match.group(0)
    return f"{match.group('lead')}{match.group('name')}{match.group('op')}{REDACTED}"


# What every match of _CONN_STRING (two parts: `=` ... `;` name `=`) and of
# _QUOTED_ASSIGN (an operator, then a quote) contains: searches anchored on a
# rare character, where the full patterns try every letter of a line.
_CONN_HINT = re.compile(r"""=[^;\n"'<>]*;[ \t]*[A-Za-z][\w .]{0,40}=""")
_QUOTED_HINT = re.compile(r"""[=:>]\s*(?:@|[bBrRuU]{1,2})?["'`]""")
# What a _QUOTED_ASSIGN match with accessors contains: the last accessor and the list's close (`get; }`); a line's
# `{` alone (every line of minified JavaScript) let the whole pattern run, 9 s over 9 MB of it.
_ACCESSOR_HINT = re.compile(r"(?i)(?:get|set|init)\s*;\s*\}")
# What a _QUOTED_ASSIGN match without accessors contains: a secret word, the
# rest of its name, then the operator and a quote. No lazy name prefix tried
# at every letter (measured on EF Core's candidate lines: 0.13 s -> 0.08 s,
# most of it `///` lines holding `name="key"`).
_QUOTED_NEED = re.compile(
    r"""(?i)(?:secret|passw(?:or|r)?d|(?<![A-Za-z])pword(?![a-z])|passphrase|pwd|token|connection[_-]?string|credential|"""
    r"""creds|key)[\w.$@-]*(?:[^\x00-\x7f\w\s])?""" + _LITERAL_INDEX + r"""["']?\]?"""
    r"""\s*""" + _ASSIGN_OP + r"""\s*(?:@|[bBrRuU]{1,2})?["'`]"""
)


# A long line (minified JavaScript) is searched by _QUOTED_ASSIGN and _ALT_ASSIGN only from the starts their matches
# can have: each match's name holds a secret word (one of _NAMED_WORDS, lowered), and begins in the run of name
# characters ([\w.$@-]) that ends at that word, or at the quote just before that run. Every other start fails, so
# trying these in order is re.sub's own left-to-right search (the same matches, the same `match.string`). A letter
# beyond ASCII that (?i) takes for an ASCII one (`ſ`, `K`, `ı`, `İ`) breaks the lowered line's finds: such a line,
# and every short line, is searched whole.
_NAMED_LONG = 2000
_NAMED_WORDS = ("secret", "passw", "pword", "passphrase", "pwd", "token", "connection", "cred", "key")
_NAMED_FOLDS = re.compile("[\u0130\u0131\u017f\u212a]")
_NAME_RUN = re.compile(r"[\w.$@-]*")


def _named_starts(line: str) -> list[tuple[int, int]] | None:
    """Disjoint, ordered ranges [a, b] holding every start of a secret-named match, or None: search the line whole."""
    n = len(line)
    if n < _NAMED_LONG or _NAMED_FOLDS.search(line):
        return None
    low = line.lower()
    if len(low) != n:
        return None
    rev, spans = line[::-1], []
    for word in _NAMED_WORDS:
        at = low.find(word)
        run_start = run_end = -1  # the run of name characters holding the last `at` (each run read once, not per word)
        while at >= 0:
            if not run_start <= at < run_end:
                run_start = at - (_NAME_RUN.match(rev, n - at).end() - (n - at))
                run_end = _NAME_RUN.match(line, at).end()
            spans.append((max(run_start - 1, 0), at))
            at = low.find(word, at + 1)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1] + 1:
            if b > merged[-1][1]:
                merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


# ... and _CONN_STRING's: its first `;` is followed by a part's name and `=` (_CONN_JOIN), and it begins in the text
# since the last [;\n"'<>] before that `;`, at a name run ([\w .\t]) that ends at one of that text's `=`.
_CONN_JOIN = re.compile(r";[ \t]*[A-Za-z][\w .]{0,40}=")
_CONN_BACK = re.compile(r"[^;\n\"'<>]*")
_CONN_NAME_RUN = re.compile(r"[\w .\t]*")


def _conn_starts(line: str) -> list[tuple[int, int]] | None:
    """Ordered, disjoint ranges [a, b] holding every start of a _CONN_STRING match, or None: search the line whole."""
    n = len(line)
    if n < _NAMED_LONG:
        return None
    rev, spans = line[::-1], []
    for join in _CONN_JOIN.finditer(line):
        c = join.start()
        seg = c - (_CONN_BACK.match(rev, n - c).end() - (n - c))
        e = line.find("=", seg, c)
        while e >= 0:
            a = max(e - (_CONN_NAME_RUN.match(rev, n - e).end() - (n - e)), seg)
            if a < e:
                spans.append((a, e - 1))
            e = line.find("=", e + 1, c)
    return spans


# _QUOTED_ASSIGN, _WRAPPED_LITERAL and _CHAR_ARRAY from one start per run of name characters, on every line. A name
# is a whole run's tail (_SECRET_NAME) and what follows it depends only on where the run ends, so if a run's first
# start fails every later one fails too, and if it matches re.sub goes on past the run: trying only each run's first
# start (its first position that can begin a name: at a word boundary for _QUOTED_ASSIGN, `first`, or the quote just
# before a run beginning there) is re.sub's own search. Each word start of a dotted run (`a.a.a.…xkey = "…"`) read
# the run to its end: 4 KB took 2 CPU s, and 100 KB of 250-character lines 3-7 s, on main too.
_NAME_RUNS = re.compile(r"[\w.$@-]+")
_NAME_FIRST = re.compile(r"(?i)\b(?=[A-Za-z0-9_$@])")
_NAME_FIRST_ANY = re.compile(r"(?i)(?=[A-Za-z0-9_$@])")


def _run_starts(line: str, starts: list[tuple[int, int]] | None, first: re.Pattern[str] = _NAME_FIRST,
                quote: bool = True) -> list[tuple[int, int]]:
    """Ordered, disjoint ranges [a, b] holding every start of a _QUOTED_ASSIGN match (a quote before the name when
    `quote`), within `starts` when given."""
    out: list[tuple[int, int]] = []
    lows = [a for a, _ in starts] if starts is not None else None
    for run in _NAME_RUNS.finditer(line):
        a, e = run.span()
        at = first.search(line, a, e)
        if at is None:
            continue
        p = at.start()
        span = (a - 1, a) if quote and p == a and a > 0 and line[a - 1] in "\"'" else (p, p)
        if lows is not None:
            k = bisect_right(lows, span[1]) - 1  # the last range starting at or before the span's end
            if k < 0 or starts[k][1] < span[0]:
                continue
            span = (max(span[0], starts[k][0]), min(span[1], starts[k][1]))
        out.append(span)
    return out


_WEAK_RUN = re.compile(r"[\w$.]*")


def _weak_starts(line: str) -> list[tuple[int, int]]:
    """Ordered, disjoint ranges [a, b] holding every start of a _WEAK_QUOTED match.

    A match's name is a run of name characters ([\\w$.]) ending where _WEAK_HINT matches (what follows a name never
    begins with one of them), so it begins in the run ending at one of _WEAK_HINT's starts, or at that start."""
    n = len(line)
    rev, spans, hint = line[::-1], [], _WEAK_HINT.search(line)
    while hint:
        h = hint.start()
        a = h - (_WEAK_RUN.match(rev, n - h).end() - (n - h))
        if spans and a <= spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], h)
        else:
            spans.append((a, h))
        hint = _WEAK_HINT.search(line, h + 1)
    return spans


def _found_at(pattern: re.Pattern[str], line: str, starts: list[tuple[int, int]] | None) -> bool:
    """Whether `pattern.search(line)` finds a match, trying only `starts` when given."""
    if starts is None:
        return pattern.search(line) is not None
    return any(pattern.match(line, at) for a, b in starts for at in range(a, b + 1))


def _sub_at(pattern: re.Pattern[str], repl, line: str, starts: list[tuple[int, int]] | None) -> str:
    """`pattern.sub(repl, line)`, trying only `starts` (ordered, from _named_starts or _conn_starts) when given."""
    if starts is None:
        return pattern.sub(repl, line)
    out, last = [], 0
    for a, b in starts:
        at = max(a, last)
        while at <= b:
            m = pattern.match(line, at)
            if m:
                out.append(line[last:at])
                out.append(repl(m))
                last = m.end()
                at = max(last, at + 1)
            else:
                at += 1
    if not out:
        return line
    out.append(line[last:])
    return "".join(out)


@functools.lru_cache(maxsize=65536)
def _redact_line(line: str) -> str:
    # Read once, before the substitutions below: they replace values, never the names that
    # hold these words, so the test stays true of the line they rewrite.
    low = line.lower()
    # _SECRET_WORDS and _FORM_HINT as substring tests written out: a generator over a
    # tuple, or a search of _FORM_HINT (whose many first letters defeat re's prefix
    # scan), costs several times more per line.
    secret = ("key" in low or "token" in low or "secret" in low or "passw" in low or "pwd" in low or "pword" in low
              or "connection" in low or "credential" in low or "creds" in low or "passphrase" in low)
    # Secrets found by their form first: what they leave is no longer a value for the rest.
    if _RULE_HOT.search(low) or _CS_RULE_HOT.search(line) or _RE_HINT_ANY.search(line):
        line = _apply_rules(line, low)
    if ("A" in line and ("AKIA" in line or "ASIA" in line or "AIza" in line or "ABIA" in line or "ACCA" in line)) or (
            "eyJ" in line or "xox" in line) or (
            "_" in line and ("gh" in line or "github_pat_" in line or "k_live_" in line or "k_test_" in line)):
        line = _TOKEN.sub(_token, line)
    if "uthorization" in low or "AuthenticationHeaderValue" in line:
        line = _AUTH_HEADER.sub(_auth_header, line)
    if "bearer" in low and ('"' in line or "'" in line or "`" in line):
        line = _BEARER_LITERAL.sub(_bearer_literal, line)
    if "asic" in line and ":" in line and ("Basic" in line or "basic" in low):
        line = _BASIC_PLAIN.sub(_basic_plain, line)
    if "basic" in low or "bearer" in low:
        line = _AUTH_BARE.sub(_auth_bare, line)
    if "createHmac" in line:
        line = _HMAC_KEY.sub(_hmac_key, line)
    if secret and "{" in line and "=" in line and _CHAR_ARRAY_HINT.search(line):
        line = _sub_at(_CHAR_ARRAY, _char_array, line, _run_starts(line, None, _NAME_FIRST_ANY, False))
    if secret and "=" in line and ("code" in low or "bytes" in low or "String(" in line or "from(" in line
                                   or "unhexlify" in low) and _WRAPPED_HINT.search(line):
        line = _sub_at(_WRAPPED_LITERAL, _wrapped_literal, line, _run_starts(line, None, _NAME_FIRST_ANY, False))
    if "Key(" in line and ("createSecretKey(" in line or "createPrivateKey(" in line):
        line = _NODE_KEY.sub(_hmac_key, line)
    if ".sign(" in line and "," in line:
        line = _SIGN_KEY.sub(_hmac_key, line)
    if "crypt(" in line and "private" in line:
        line = _PRIVATE_CRYPT_KEY.sub(_hmac_key, line)
    if ("jwt" in low or "jsonwebtoken" in low) and ("sign(" in line or "verify(" in line or "code(" in line):
        line = _JWT_KEY.sub(_hmac_key, line)
    if secret and ("-H" in line or "--header" in line):
        line = _HEADER_FLAG.sub(_header_flag, line)
    # (each pattern below has no literal prefix for re to scan by: a substring test first)
    if "=" in line and (secret or "_pass" in low) and (
            "-" in line or "export" in line or "ENV" in line or "ARG" in line) and (len(line) < _NAMED_LONG or (
            _ENV_FLAG_HINT.search(line) or _ENV_EXPORT_HINT.search(line) or _ENV_START_HINT.search(line))):
        line = _ENV_ASSIGN.sub(_env_assign, line)
    if "ENV" in line and (secret or "_pass" in low) and line.lstrip().startswith("ENV"):
        line = _DOCKER_ENV_SPACE.sub(_env_assign, line)
    if ("-u" in line or "--user" in line or "--proxy-user" in line or "asplaintext" in low) and (":" in line or "asplaintext" in low):
        line = _COMMAND_CRED.sub(_command_cred, line)
    if "'" in line and ("identified" in low or "password" in low and ("with" in low or "," in line)):
        line = _SQL_PASSWORD.sub(_sql_password, line)
    if ("create" in low or "alter" in low) and ("password" in low or "identified" in low):
        line = _SQL_ROLE_PASSWORD.sub(_sql_role_password, line)
    if "sp_" in low and "'" in line:
        line = _SQL_LOGIN_CALL.sub(_sql_login_call, line)
    # Cheap guards first: most code lines hold none of these.
    if "@" in line and "://" in line:
        line = _URL_CRED.sub(_url_cred, line)
        if "," in line:
            line = _URL_CRED_MORE.sub(_url_cred_more, line)
    if ";" in line and "=" in line and _CONN_HINT.search(line):
        line = _sub_at(_CONN_STRING, _conn_string, line, _conn_starts(line))
    multi = False
    # the new line-end rules below need a line ending in a quote, or in a run of 16 token characters
    rs = line.rstrip(" \t\r;,")
    tail = len(rs) >= 16 and _TOKEN_CHARS.fullmatch(rs, len(rs) - 16) is not None
    if secret and ("'" in line or '"' in line) and "," in line and "=" in line:
        m = _MULTI_ASSIGN.match(line)
        # names and values paired by position: `password = "alice"` is no pair of `user, password = "alice", "…"`
        # (a literal among the values: `a, b = 1, 2  # token = "…"` is the comment's)
        if m and ("'" in m.group("values") or '"' in m.group("values")):
            line, multi = _MULTI_ASSIGN.sub(_multi_assign, line, count=1), True
    if ("=" in line or ":" in line) and secret and not multi:
        # (`{`: an accessor list may sit in between)
        # (a long line: the pattern from its few starts costs less than the hints, which it needs no more; a short
        # line, most of them, calls nothing more than before)
        starts = _named_starts(line) if len(line) >= _NAMED_LONG else None
        if ('"' in line or "'" in line or "`" in line) and (starts is not None or _QUOTED_HINT.search(line) and (
                ("{" in line and _ACCESSOR_HINT.search(line)) or _QUOTED_NEED.search(line))):
            if starts is None:
                line = _sub_at(_QUOTED_ASSIGN, _quoted, line, _run_starts(line, None))
            elif (changed := _sub_at(_QUOTED_ASSIGN, _quoted, line, _run_starts(line, starts))) != line:
                line, starts = changed, _named_starts(changed)
        if ("||" in line or "?" in line or " else " in line or " or " in line) and (
                '"' in line or "'" in line or "`" in line):
            line = (_ALT_ASSIGN.sub(_alt_assign, line) if starts is None
                    else _sub_at(_ALT_ASSIGN, _alt_assign, line, starts))
        if _CONFIG_START.match(line):
            line = _CONFIG_LINE.sub(_config_line, line)
        if "value" in low:
            for pattern in _XML_PAIRS:
                line = pattern.sub(_xml_pair, line)
    if secret and "</" in line:
        line = _XML_ELEMENT.sub(_xml_element, line)
        if "=" in line:
            line = _XML_ENV_TEXT.sub(_xml_env_text, line)
        if "name" in low:
            line = _XML_NAMED.sub(_xml_element, line)
    # (after _CONFIG_LINE, which takes a live `NAME=value` line whole)
    if "=" in line and (secret or "_pass" in low) and line.lstrip(" \t#")[:1].isupper():
        line = _DOTENV_LINE.sub(_dotenv_line, line)
    if ("key" in low or "token" in low or "auth" in low or "login" in low) and (
            '"' in line or "'" in line or "`" in line) and _WEAK_HINT.search(line):
        line = _sub_at(_WEAK_QUOTED, _weak_quoted, line, _weak_starts(line))
    if ('"key"' in low or "'key'" in low) and ":" in line:
        line = _BARE_KEY_PAIR.sub(_bare_key_pair, line)
    if tail and ("key" in low or "token" in low) and ("=" in line or ":" in line) and _WEAK_START.match(line):
        line = _WEAK_UNQUOTED.sub(_weak_unquoted, line, count=1)
    # (its `=` or `:` forms have no blank: `x key=…` and `key=…` are judged alike)
    if tail and secret and _LABELLED.match(line):
        line = _LABELLED.sub(_labelled, line, count=1)
    if secret and ("=" in line or ": " in line) and _LABELLED_MID_HINT.search(line):
        line = _LABELLED_MID.sub(_labelled_mid, line)
    if secret and "`" in line:
        line = _LABELLED_CODE.sub(_labelled_mid, line)
    if secret and ("%define" in low or "%global" in low or "set" in low) and _SET_WORD.match(line):
        line = _SET_WORD.sub(_set_word, line)
    if ("=" in line or ":" in line) and ("pw" in low or "pass" in low or "psw" in low or "pssw" in low or "pasw" in low
                                         or secret) and _PROSE_HINT.search(line):
        line = _PROSE_PAIR.sub(_prose_pair, line)
    if secret and ('value"' in low or "value'" in low or "value:" in low or "value=" in low) and (
            "key" in low or "name" in low) and ('"' in line or "'" in line):
        line = _NAME_VALUE_PAIR.sub(_name_value_pair, line)
    if secret and ("')" in line or '")' in line) and "=" in line and _CALL_KEY_HINT.search(line):
        line = _CALL_KEY_ASSIGN.sub(_quoted_call, line)
    if (secret or "auth" in low) and ("(" in line and "," in line):
        line = _CALL_PAIR.sub(_quoted_call, line)
        if "_" in line or "." in line:
            line = _CONST_CALL_PAIR.sub(_quoted_call, line)
    if secret and "," in line and ('"' in line or "'" in line) and "(" not in line:
        line = _LIST_PAIR.sub(_list_pair, line)
    if (secret or "auth" in low) and ("==" in line or "!=" in line or "<=>" in line) and (
            '"' in line or "'" in line or "`" in line) and (len(line) < _NAMED_LONG or _COMPARED_HINT.search(line)):
        line = _QUOTED_COMPARED.sub(_quoted_compared, line)
    if (secret or "auth" in low) and ("cmp(" in low or "equal" in low or "compare" in low) and (
            '"' in line or "'" in line):
        line = _CMP_CALL.sub(_cmp_call, line)
    if ("pw" in low or "cred" in low) and ("=" in line or ":" in line) and ('"' in line or "'" in line or "`" in line):
        line = _SHORT_NAMED.sub(_short_named, line)
    if "pass" in low and ("=" in line or ":" in line) and ('"' in line or "'" in line or "`" in line):
        line = _PASS_NAMED.sub(_pass_named, line)
    if (secret or "pass" in low) and "(" in line and ("=" in line or ":" in line) and (
            '"' in line or "'" in line or "`" in line) and any(h in low for h in _DECODE_HINTS):
        line = _DECODE_CALL.sub(_decoded_literal, line)
    if secret and "=>" in line and ("(" in line) and ('"' in line or "'" in line or "`" in line) and (
            _ARROW_OPEN.search(line) and _found_at(_ARROW_HINT, line, _named_starts(line))):
        line = _ARROW_RETURN.sub(_arrow_return, line)
    if secret and "[" in line and "," in line and "=" in line and _FLOW_LIST_LINE.match(line):
        line = _FLOW_ASSIGN.sub(_flow_assign, line)
    if " key" in low and ('"' in line or "'" in line):
        line = _LABEL_KEY.sub(_label_key, line)
    if secret and "define" in low and '"' in line:
        line = _C_DEFINE.sub(_quoted_call, line)
    if secret and '"' in line and ("equals" in low or "compareto" in low) and (
            _EQUALS_HINT.search(line) if len(line) < _NAMED_LONG else _EQUALS_LITERAL_HINT.search(line)
            or _found_at(_EQUALS_NAMED_HINT, line, _named_starts(line))):
        line = _EQUALS_CALL.sub(_equals_call, line)
    if secret and '"' in line and "string" in low:
        line = _STRING_CTOR.sub(_quoted_call, line)
    if "(" in line:
        if (secret or any(word in low for word in _FOREIGN_HOT)) and _SETTER_HINT.search(line):
            line = _SETTER_CALL.sub(_setter_call, line)
        if secret and "." in line:  # (no gate: the pattern's `.` and a name at it fail as fast as a hint)
            line = _METHOD_CALL.sub(_method_call, line)
        if '"' in line and _key_bytes_hint(line):
            line = _KEY_BYTES.sub(_key_bytes, _ADD_IDENTITY.sub(_add_identity, line))
    if secret and "=" in line and ('"' in line or "'" in line):
        line = _QUOTED_ENV.sub(_quoted_env, line)
        if ("pass" in low or "pwd" in low) and _GLUED_HINT.search(line):
            line = _GLUED_PAIR.sub(_glued_pair, line)
    if ("new" in line or "New" in line or "NEW" in line) and '"' in line and (
            "Credential" in line or "DeriveBytes" in line or "Authentication" in line):
        line = _CRED_CTOR.sub(_cred_ctor, line)
    if "," in line and ('"' in line or "'" in line) and _CALL_HINT.search(line):
        line = _CONNECT_CALL.sub(_connect_call, line)
    if secret and "=" in line and ('"' in line or "'" in line) and (" " in line or "\t" in line):
        line = _SPACED_PAIR.sub(_spaced_pair, line)
    if secret and "=" in line and (" =" in line or "= " in line or "\t" in line):
        line = _INI_LINE.sub(_ini_line, line)
    if secret and ";" in line and "=" in line and _STATEMENTS_LINE.match(line):
        line = _STATEMENT.sub(_statement, line)
    if "-" in line and secret:
        line = _CLI_FLAG.sub(_cli_flag, line)
    if "_" in line and "=" in line:
        line = _NPMRC_CRED.sub(_npmrc, line)
    if "<pass" in low and "</" in line:
        line = _XML_PASS.sub(_xml_pass, line)
    if "pass" in low and ('"pass"' in low or "'pass'" in low):
        line = _PASS_KEY.sub(_pass_key, line)
    if "define" in low and ("_key" in low or "_salt" in low) and ('"' in line or "'" in line):
        line = _WP_SALT.sub(_wp_salt, line)
    if "://" in line and ("password=" in low or "pwd=" in low or "passwd=" in low):
        line = _QUERY_PASSWORD.sub(_query_password, line)
    if "password" in low and "." in line and ("spring" in low or "datasource" in low or "jdbc" in low
                                              or "quarkus" in low or "micronaut" in low or "r2dbc" in low):
        line = _PROPS_PASSWORD.sub(_props_password, line)
    return line


# Where a line can need `_redact_line` at all, found over the whole (lowered)
# text in C instead of visiting every line in Python: a secret word or `://`
# (guards 1 and 3), or `=` ... `;` ... `=` on one line, without which
# _CONN_STRING (at least two `name=value` parts) cannot match (guard 2).
# _SECRET_WORDS and `://` as searches, words sharing a first letter in one
# (a literal first character keeps re's scan fast), each match running to the
# end of its line so that a line is found once per search: measured ~0.02 s
# per search over 26 MB, faster than a loop of str.find calls.
_HOT_LINES = tuple(re.compile(pattern + r"[^\n]*") for pattern in (
    # `_pass`: an environment variable's (`SMTP_PASS`), in one scan with `_auth`
    # `auth` as a word (`string auth = "…"`)
    "secret", "p(?:assw|wd?|assphrase|s{1,2}w|asw)", "token", "c(?:onnect|red)", "key", "://", "_(?:auth|pass|bind)",
    "login", r"auth\b"))
# Secrets by form (see _FORM_HINT), searched in the text as it is (their case is
# fixed), each from a literal that is rare in code (a scan from a common first
# letter is 2-3 times slower: `eyJ` 24 ms, `yJ` 12 ms over 8 MB of Python).
_FORM_HOT_LINES = tuple(re.compile(pattern + r"[^\n]*") for pattern in (
    "A(?:KIA|SIA|BIA|CCA|Iza|uthenticationHeaderValue)", "yJ", "xox[abeoprs]-", "k_(?:live|test)_",
    r"g(?:h[pousr]_|ithub_pat_)"))
# ... and in the lowered text: an Authorization header, SQL's `IDENTIFIED BY`, `curl -u`, `Basic user:pass` or base64,
# PowerShell's `ConvertTo-SecureString "…" -AsPlainText`.
_RARE_HOT_LINES = tuple(re.compile(pattern + r"[^\n]*") for pattern in (
    "uthorization", "bearer", "identified", r"-(?:u[ \t]|-user[ \t]|asplaintext)", "derivebytes", "change_user",
    "imap_open", "logon", r"new\s+(?:pdo|mysqli|maxdb)\b",
    # SQL Server's login procedures (_SQL_LOGIN_CALL)
    r"sp_(?:addlogin|password|addapprole|setapprole|approlepassword|change_users_login|addlinkedsrvlogin)",
    # a Basic scheme's plain `user:pass` (_BASIC_PLAIN) or its base64 with no header's name (_AUTH_BARE), an HMAC's
    # key by position (_HMAC_KEY)
    r"basic[ \t]+(?:[\w.@+-]+:|[a-z0-9+/]{16})", r"createhmac\(",
    # a name ending in `pass` given a value (`dbPass = …`, `"pg_pass": …`: _PASS_NAMED)
    r"pass[0-9]{0,2}[\"'\]]?[ \t]*[:=]",
    # FileZilla's `<Pass>` (_XML_PASS), WordPress's `define('NONCE_SALT', …)` (_WP_SALT)
    r"<pass[ >]", r"_salt[\"']"))
_HOT_CONN = re.compile(r";[^;\n]*=")
# ... and a key given by position to a signer or a JWT's call (_SIGN_KEY, _JWT_KEY; a receiver `jsonwebtoken` is a
# `token` line already, _PRIVATE_CRYPT_KEY's `key:` a `key` line), each scanned only in a text holding its literal
# (a substring test is cheaper than the scan that finds nothing; `.sign(`, not `sign(`, which every `assign(` holds).
_SIGN_HOT_LINES = ((".sign(", re.compile(r"\.sign\([^\n]*,[^\n]*")),
                   ("jwt", re.compile(r"jwt[\w$]*\.(?:sign|verify|encode|decode)\([^\n]*")),
                   # a setter named in another language (_FOREIGN_PASSWORD; German's `passwort` is a `passw` line),
                   # JSch's addIdentity (_ADD_IDENTITY), an HMAC keyed by a literal's bytes (_KEY_BYTES)
                   # (one scan from `set`, re's literal prefix: five substring tests cost more; a name of 40
                   # characters at most between, so a run of `setset…` stays linear)
                   ("set", re.compile(r"set\w{0,40}?(?:senha|contrase|wachtwoord|mot(?:de|_de_)passe)[^\n]*")),
                   ("addidentity", re.compile(r"addidentity[^\n]*")), ("hmac", re.compile(r"hmac(?:sha|md5)[^\n]*")))
# The hints as one scan per first character: a literal first character lets re skip ahead
# (measured over 31 MB of Python: 1.3 s against 1.8 s for the one trie), worth its 35 calls
# on a whole file, not on a piece's text.
_RULE_HOT_LINES = re.compile(f"(?:{_RULE_HOT.pattern})[^\\n]*")
_CS_RULE_HOT_LINES = (re.compile(f"(?:{_CS_RULE_HOT.pattern})[^\\n]*"),
                      *(re.compile(f"(?:{h.pattern})[^\\n]*") for h, _ in _RE_HINT_GROUPS))
_RULE_SCAN_SPLIT = 64_000
_RULE_HOT_SCANS = tuple(
    re.compile(re.escape(first) + "(?:" + _trie([h[1:] for h in hints]) + ")[^\\n]*" if all(len(h) > 1 for h in hints)
               else re.escape(first) + "[^\\n]*")
    for first, hints in sorted({h[0]: [g for g in _HINT_RULES if g[0] == h[0]] for h in _HINT_RULES}.items()))


def _line_changes(text: str) -> list[tuple[int, int, str]]:
    """(start, end, redacted line) for every line of text that redaction changes.

    Only lines a whole-text scan flags as possible hits are visited; every
    other line is left as it is by every pattern of `_redact_line`.
    """
    low = text.lower()
    if len(low) != len(text):  # a character lowered to two: offsets differ, visit every line
        low, starts = "", set(accumulate(map(len, text.split("\n")[:-1]), lambda a, n: a + n + 1, initial=0))
    else:
        starts = set()
    rfind = low.rfind
    for pattern in _HOT_LINES:
        starts.update([rfind("\n", 0, m.start()) + 1 for m in pattern.finditer(low)])
    for pattern in _RARE_HOT_LINES:
        starts.update([rfind("\n", 0, m.start()) + 1 for m in pattern.finditer(low)])
    for literal, pattern in _SIGN_HOT_LINES:
        if literal in low:
            starts.update([rfind("\n", 0, m.start()) + 1 for m in pattern.finditer(low)])
    if len(low) < _RULE_SCAN_SPLIT:  # one call: on a piece's text the calls cost more than the scan
        starts.update([rfind("\n", 0, m.start()) + 1 for m in _RULE_HOT_LINES.finditer(low)])
    else:
        for pattern in _RULE_HOT_SCANS:
            starts.update([rfind("\n", 0, m.start()) + 1 for m in pattern.finditer(low)])
    if low:
        trfind = text.rfind
        for pattern in (*_FORM_HOT_LINES, *_CS_RULE_HOT_LINES):
            starts.update([trfind("\n", 0, m.start()) + 1 for m in pattern.finditer(text)])
    if low and ";" in text:
        conn = _HOT_CONN.search
        m = conn(text)
        while m is not None:
            # `;` ... `=` found; guard 2 also needs an `=` before that `;` on the line
            at = m.start()
            ls = text.rfind("\n", 0, at) + 1
            if "=" in text[ls:at]:
                starts.add(ls)
                at = text.find("\n", at)  # one visit per line keeps a huge line linear
                if at < 0:
                    break
            m = conn(text, at + 1)
    # Private-key blocks span lines: found over the whole text, then each line of
    # one goes through the line patterns as well.
    pem = _pem_changes(text) if "PRIVATE KEY" in text else None
    if "Private-Lines:" in text or _may_be_secret_kind(text):
        pem = {**(pem or {}), **_block_changes(text, pem or {})}
    if "value:" in text and ("name:" in text or "key:" in text):
        pem = {**(pem or {}), **_k8s_env_changes(text, pem or {})}
    if "value:" in text:
        pem = {**(pem or {}), **_parent_value_changes(text, pem or {})}
    if ":\n" in text or ": \n" in text or "=\n" in text or "= \n" in text or ":\r\n" in text or "=\r\n" in text:
        pem = {**(pem or {}), **_next_line_changes(text, pem or {})}
    if starts and ('\\"' in text or "\\n" in text):
        pem = {**(pem or {}), **_escaped_pair_changes(text, pem or {}, starts)}
    if (": |" in text or ": >" in text) and _YAML_BLOCK_PASSWORD.search(text):
        pem = {**(pem or {}), **_yaml_block_password_changes(text, pem or {})}
    if "LS0tLS1CRUdJTi" in text:
        pem = {**(pem or {}), **_b64_pem_changes(text, pem or {})}
    if "M" in text and _DER_KEY_HEAD.search(text):
        pem = {**(pem or {}), **_der_key_changes(text, pem or {})}
    if "KeyValue>" in text:
        pem = {**(pem or {}), **_xml_key_changes(text, pem or {})}
    if 'variable "' in text:
        pem = {**(pem or {}), **_tf_default_changes(text, pem or {})}
    if "</key>" in text:
        if "<value>" in text:
            pem = {**(pem or {}), **_xml_key_value_changes(text, pem or {})}
        if "<string>" in text:
            pem = {**(pem or {}), **_xml_key_value_changes(text, pem or {}, _PLIST_KEY_STRING, _plist_pair_secret)}
    if ":\n" in text or ": \n" in text or ":\r\n" in text or "[\n" in text or "[\r\n" in text or "[ \n" in text:
        pem = {**(pem or {}), **_list_item_changes(text, pem or {})}
    if "Default" in text and "Parameters" in text:
        pem = {**(pem or {}), **_cfn_default_changes(text, pem or {})}
    if starts and ("(\n" in text or ",\n" in text or "(\r\n" in text or ",\r\n" in text):
        pem = {**(pem or {}), **_split_call_changes(text, starts, pem or {})}
    if pem:
        starts.update(pem)
    changes = []
    for ls in sorted(starts):
        le = text.find("\n", ls)
        if le < 0:
            le = len(text)
        line = text[ls:le]
        new = _redact_line(pem.get(ls, line) if pem else line)
        if new != line:
            changes.append((ls, le, new))
    return changes


def _apply(text: str, changes: list[tuple[int, int, str]], lo: int = 0, hi: int | None = None) -> str:
    out, done = [], lo
    for ls, le, new in changes:
        out.append(text[done:ls])
        out.append(new)
        done = le
    out.append(text[done:hi])
    return "".join(out)


def redact_text(text: str) -> str:
    """Free-text redaction of literal secrets; idempotent, leaves code alone.

    Line by line, with a cache: every pattern is line-local, and a chunk's
    analysis text repeats its type's skeleton, so most lines were seen before.
    Measured on 3.6 MB of real C#: whole-text regexes ran at 0.07 MB/s, a
    Python visit of every line at ~3 MB/s, the scan for candidate lines of
    `_line_changes` at ~35 MB/s. The result is `_redact_line` of every line.
    """
    if not may_hold_secret(text):
        return text
    changes = _line_changes(text)
    return _apply(text, changes) if changes else text


_MISSING = object()
# Below this size a text is simply scanned (see _Memo._clean_view).
_VIEW_MIN = 256


class _Memo:
    """redact_text for the pieces of one file. Every pattern is line-local, so
    a piece whose body is the source's own lines takes the source's redaction
    (computed once), and a text extending a redacted one at a line break only
    redacts the rest; a type's skeleton and context recur in many pieces."""

    def __init__(self, source: str | None = None) -> None:
        self.seen: dict[str, str | None] = {}  # None: redaction leaves it unchanged
        self.symbols: dict[int, tuple[ChunkSymbol, ChunkSymbol]] = {}  # id -> (symbol, redacted)
        self.tails: list[tuple[str, str]] = []  # recent (text, redacted) of `extending`
        self.source = source
        self._lines: list[str] = []
        self._pre: list[int] | None = None
        self._changes: list[tuple[int, int, str]] = []
        self._change_at: list[int] = []
        self._line_set: set[str] | None = None  # lines known to be left unchanged
        self._cursor: dict[int, int] = {}  # line start -> where its next slice is looked for
        self._spans: dict[int, tuple[list[int], list[tuple[int, int, int]]]] = {}  # see _marker_spans
        self._slices: dict[str, str] = {}  # a slice of a long line -> its redaction (_line_slice)

    def _scan_source(self) -> None:
        if self._pre is None:
            self._lines, self._pre = line_table(self.source)  # line k + 1 starts at pre[k] + k
            self._changes = _line_changes(self.source)
            self._change_at = [c[0] for c in self._changes]

    def _clean_view(self, text: str) -> bool:
        """Is a large text made mostly of the source's lines (a skeleton, an
        outline) left as it is by redaction? When no line of the source
        changes, only its other lines need a look: set operations and one scan
        of those lines, instead of a scan of the whole text."""
        if self.source is None or len(text) < _VIEW_MIN:
            return False
        self._scan_source()
        if self._changes:
            return False
        known = self._line_set
        if known is None:
            known = self._line_set = set(self._lines)
        rest = set(text.split("\n")).difference(known)
        # Every pattern is line-local: the text is unchanged iff each of its
        # lines is, and the source's lines are (no change found there).
        if not rest:
            return True
        if len(rest) > 32:
            if _line_changes("\n".join(rest)):
                return False
        elif any(_redact_line(line) != line for line in rest):  # a few (cached) lines: no scan
            return False
        # Lines seen unchanged join the known ones: a type's skeleton, its
        # members' context and its header's analysis text share most lines.
        known.update(rest)
        return True

    def __call__(self, text: str) -> str:
        if not text:
            return text
        done = self.seen.get(text, _MISSING)
        if done is _MISSING:
            red = text if self._clean_view(text) else redact_text(text)
            if self._slices:
                red = self._cut_lines(text, red)
            done = self.seen[text] = None if red == text else red
        return text if done is None else done

    def extending(self, text: str, prefix: str, head: str | None = None) -> str:
        """redact_text(text) for a text that extends `prefix` (`head`: the
        prefix's redaction, when the caller already has it)."""
        n = len(prefix)
        if n and len(text) > n and text.startswith(prefix):
            if text[n] == "\n":
                if head is None:
                    head = self(prefix)
                # A member's analysis text ends in its type's context: a long
                # tail shared by every member, matched by comparison (no copy, no hash).
                size = len(text) - n - 1
                for rest, tail in self.tails:
                    if len(rest) == size and text.endswith(rest):
                        break
                else:
                    rest = text[n + 1:]
                    tail = self(rest)
                    self.tails = [(rest, tail), *self.tails[:3]]
                return text if head is prefix and tail is rest else head + "\n" + tail
            if prefix[-1] == "\n":
                if head is None:
                    head = self(prefix)
                rest = text[n:]
                tail = self(rest)
                return text if head is prefix and tail is rest else head + tail
        return self(text)

    def text_and_header(self, text: str, header: str, start: int, end: int) -> tuple[str, str]:
        """(redacted text, redacted header) of a piece: when text is exactly
        `header + source lines start..end`, the body takes the source's
        redaction (computed once) instead of a scan."""
        head = self(header) if header else header
        source = self.source
        if source is None or not (header == "" or header[-1] == "\n"):
            return self(text), head
        pre = self._pre
        if pre is None:
            self._scan_source()
            pre = self._pre
        if not 1 <= start <= end < len(pre):
            return self(text), head
        lo, hi, h = pre[start - 1] + start - 1, pre[end] + end - 1, len(header)
        if len(text) - h != hi - lo or not text.startswith(header) or not source.startswith(text[h:], lo):
            if start == end and len(text) - h < hi - lo and text.startswith(header):
                body = self._line_slice(text[h:], lo, hi)
                if body is not None:
                    return head + body, head
            return self(text), head
        changes = self._changes
        if changes:
            at = self._change_at
            i, j = bisect_left(at, lo), bisect_right(at, hi)
            if i != j:
                return head + _apply(source, changes[i:j], lo, hi), head
        return (text if head is header else head + text[h:]), head


    def _cut_lines(self, text: str, red: str) -> str:
        """`red` (redact_text of `text`) with every line of text that is a slice of a long line cut into
        pieces (a class member's part repeats its slice after the class's outline in its analysis text)
        given the slice's redaction (_line_slice): the slice redacted alone keeps a secret its edge cuts.
        (A chunker's own cut of a long line, for an outline, a signature or a title, cuts the line's
        redaction: cut_redacted.)"""
        slices = self._slices
        raw_lines, red_lines = text.split("\n"), None
        for i, line in enumerate(raw_lines):
            cut = slices.get(line)
            if cut is not None:
                if red_lines is None:
                    red_lines = red.split("\n")
                    if len(red_lines) != len(raw_lines):
                        return redact_text(red)  # not line for line (never seen): the strict reading
                red_lines[i] = redact_text(cut)
        return red if red_lines is None else "\n".join(red_lines)

    def _line_slice(self, body: str, lo: int, hi: int) -> str | None:
        """The redaction of `body`, a slice of the source line lo..hi that is too long for one piece
        (minified code, a one-line JSON document): the part of the whole line's redaction that the
        slice covers. Redacting the slice alone would miss a secret cut by its edge or whose name
        is in the slice before; None when the line is left unchanged or body is not a slice of it."""
        changes, at = self._changes, self._change_at
        i = bisect_left(at, lo)
        if i == len(at) or at[i] != lo:
            return None
        new = changes[i][2]
        pos = self.source.find(body, self._cursor.get(lo, lo), hi)  # a line's slices come in order
        if pos < 0:
            pos = self.source.find(body, lo, hi)
            if pos < 0:
                return None
        self._cursor[lo] = pos + len(body)
        a, b = self._red_offset(lo, hi, pos - lo, new), self._red_offset(lo, hi, pos + len(body) - lo, new)
        # The slice's own scan still runs: what the whole line's redaction keeps, the slice's
        # pieces may not (a slice is judged at least as strictly as it was before).
        out = self._slices[body] = self(new[a:b]) if b > a else REDACTED
        return out  # (an analysis text repeating the slice takes it too: _cut_lines)

    def _red_offset(self, lo: int, hi: int, c: int, new: str) -> int:
        """Where offset `c` of the source line lo..hi falls in its redaction `new`. The redaction is
        the line with spans replaced by REDACTED: an offset inside a replaced span moves to the
        marker's end, so a secret's marker goes whole to the piece holding the secret's start."""
        spans = self._spans.get(lo)
        if spans is None:
            spans = self._spans[lo] = _marker_spans(self.source[lo:hi], new)
        starts, rows = spans
        k = bisect_right(starts, c) - 1
        if k < 0:
            return c
        raw_start, raw_end, red_start = rows[k]
        if c < raw_end:
            return red_start if c == raw_start else red_start + len(REDACTED)
        return red_start + len(REDACTED) + c - raw_end


def _marker_spans(line: str, new: str) -> tuple[list[int], list[tuple[int, int, int]]]:
    """The spans of `line` that its redaction `new` holds REDACTED in place of, as (raw start, raw end,
    start in new), and their raw starts. Where `new` is not so rewritten, offsets map in proportion,
    each marker one span: cut points may shift, never outside `new`."""
    spans = _redacted_spans(line, new)
    rows = []
    if spans is not None:
        shift = 0
        for a, b in spans:
            rows.append((a, b, a + shift))
            shift += len(REDACTED) - (b - a)
    else:
        scale, at = len(line) / max(1, len(new)), new.find(REDACTED)
        while at >= 0:
            rows.append((int(at * scale), max(int(at * scale) + 1, int((at + len(REDACTED)) * scale)), at))
            at = new.find(REDACTED, at + len(REDACTED))
    return [r[0] for r in rows], rows


# cut_redacted reads this much of a text past the cut: a value that starts before the cut ends within it (a JWT, a
# private key escaped onto one line), and a minified bundle's member, folded from a line of megabytes, costs no more
# than this to cut (the whole line, redacted for every member, doubled a bundle's chunking time).
_CUT_CONTEXT = 4096


def cut_redacted(text: str, n: int) -> str:
    """The first `n` characters of `text` after its redaction, never cut inside a marker: what a chunker keeps of a
    line too long for an outline, a signature or a title (`text[:n]` where nothing is redacted). A clip taken first
    and redacted after keeps the start of a secret it cuts, and a clip inside a line, or of a line whose blanks were
    folded, is no part the pieces' redaction can find again. A text of at most `n` characters is returned as it is
    (the pieces' redaction sees it whole)."""
    return text if len(text) <= n else _marker_safe(redact_text(text[:n + _CUT_CONTEXT]), n)


def _marker_safe(red: str, n: int) -> str:
    """The first `n` characters of a redacted text, or fewer where the cut would split a marker."""
    at = red.rfind(REDACTED, max(0, n - len(REDACTED)), n + len(REDACTED))
    return red[:at if 0 <= at < n < at + len(REDACTED) else n]


def clip_redacted(text: str, limit: int, mark: str = "…") -> str:
    """`text` cut to `limit` characters (`mark` included) after its redaction, the whole text's (a heading's title
    in the breadcrumbs, read once per heading)."""
    if len(text) <= limit:
        return text
    red = redact_text(text)
    return red if len(red) <= limit else _marker_safe(red, limit - len(mark)) + mark


def _redact_meta(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: _redact_meta(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_redact_meta(v) for v in value)
    return value


def _redact_symbol(s: ChunkSymbol, red=redact_text) -> ChunkSymbol:
    if not may_hold_secret(s.name) and not may_hold_secret(s.parent):
        return s
    name, parent = red(s.name), red(s.parent)
    if (name, parent) == (s.name, s.parent):
        return s
    return ChunkSymbol(name, s.kind, parent, s.start_line, s.end_line)


_NAME, _PARENT = attrgetter("name"), attrgetter("parent")
# Meta values that redaction passes through as they are (line numbers, part counts).
_PLAIN_META = frozenset({int, float, bool, type(None)})
# Meta keys whose values a chunker takes from a fixed vocabulary (a C# access keyword, a grammar's
# name, a piece's role in its type), never from the file's text: nothing to redact.
_VOCABULARY_META = frozenset({"visibility", "language", "role"})
# ... and keys whose values chunkers set from numbers (one set test, before a loop over the values).
_CHUNKER_META = _VOCABULARY_META | {"part", "parts", "type_start_line", "type_end_line", "start_page", "end_page"}


def redact_piece(piece: ChunkPiece, memo: _Memo | None = None) -> ChunkPiece:
    red = memo or _Memo()
    raw, raw_header = piece.text, piece.header
    raw_analysis, raw_skeleton = piece.analysis_text, piece.skeleton
    text, header = red.text_and_header(raw, raw_header, piece.start_line, piece.end_line)
    analysis = raw_analysis
    if analysis:
        # `text` is already redact_text(raw): an analysis text extending it
        # only redacts its own rest.
        if analysis.startswith(raw):
            analysis = red.extending(analysis, raw, text)
        else:
            analysis = red.extending(analysis, raw_header)
    skeleton = red(raw_skeleton) if raw_skeleton else raw_skeleton
    symbols = raw_symbols = piece.symbols
    if symbols:
        # _redact_symbol keeps every symbol that cannot hold a secret (most lists): one
        # test over the joined names and parents instead of a loop.
        names = "".join(map(_NAME, symbols)) + "".join(map(_PARENT, symbols))
        if may_hold_secret(names):
            # A file's pieces share their symbol objects (a type's list rides every part).
            done = red.symbols
            out = []
            for s in symbols:
                hit = done.get(id(s))
                if hit is None:
                    hit = done[id(s)] = (s, _redact_symbol(s, red))
                out.append(hit[1])
            symbols = out
    meta = raw_meta = piece.meta
    if meta and not _CHUNKER_META.issuperset(meta) and not all(
            type(v) in _PLAIN_META or k in _VOCABULARY_META for k, v in meta.items()):
        meta = _redact_meta(meta)
    if (text is raw and header is raw_header and analysis is raw_analysis and skeleton is raw_skeleton
            and meta is raw_meta and symbols is raw_symbols):
        return piece
    if (text, header, analysis, skeleton, meta) == (
        raw, raw_header, raw_analysis, raw_skeleton, raw_meta
    ) and symbols == raw_symbols:
        return piece
    return replace(piece, text=text, header=header, analysis_text=analysis, skeleton=skeleton,
                   symbols=list(symbols), meta=meta)


def redact_pieces(pieces, source: str | None = None) -> list[ChunkPiece]:
    """redact_piece over the pieces of one file (`source`: its decoded text),
    sharing one memo."""
    memo = _Memo(source)
    return [redact_piece(p, memo) for p in pieces]


# ------------------------------------------------------------- line views ---
# read-span serves a file's own lines, not its chunks: the free-text pass line by line, and for a
# settings file (`chunkers.languages`: .env, .json, .yaml, .xml, ...) the values under secret-shaped
# keys, which the config chunker redacts in its parsed view (`redact_value`). A config-shaped line
# (`key = value`, `"key": "value"`, `key: value`, `export KEY=value`) or a one-line XML element
# (`<Password>…</Password>`) is redacted by its key (`is_secret_key`).
_SETTING_LINE = re.compile(r"""^(?P<lead>[ \t]*(?:export[ \t]+|-[ \t]+)?["']?)(?P<key>[\w.$@:-]+)"""
                           r"""(?P<mid>["']?[ \t]*(?:=|:)[ \t]*)(?P<value>.*?)(?P<trail>[ \t]*,?[ \t]*)$""")
_SETTING_ELEMENT = re.compile(r"<(?P<tag>[\w:.-]+)(?P<attrs>\s[^<>]*)?>(?P<value>[^<>\n]+)</(?P=tag)>")


def _hidden_setting(value: str, key: str) -> str | None:
    """The redacted form of a settings value under `key`, or None to keep it."""
    v = value.strip()
    if not v or REDACTED in v or not is_secret_key(key) or v in ("{", "[", "|", ">", "|-", ">-"):
        return None
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        inner = v[1:-1]
        return None if not inner or is_benign_value(inner, key) else f"{v[0]}{REDACTED}{v[0]}"
    return None if is_benign_value(v, key) else REDACTED


def redact_setting_line(line: str) -> str:
    """One line of a settings file with the value under a secret-shaped key redacted."""
    m = _SETTING_LINE.match(line)
    if m:
        hidden = _hidden_setting(m.group("value"), m.group("key").rsplit(":", 1)[-1].rsplit(".", 1)[-1])
        if hidden is not None:
            return f"{m.group('lead')}{m.group('key')}{m.group('mid')}{hidden}{m.group('trail')}"
    if "</" in line:
        def element(x: re.Match) -> str:
            hidden = _hidden_setting(x.group("value"), x.group("tag"))
            return x.group(0) if hidden is None else f"<{x.group('tag')}{x.group('attrs') or ''}>{hidden}</{x.group('tag')}>"
        line = _SETTING_ELEMENT.sub(element, line)
    return line


def redact_lines(text: str, settings: bool = False) -> list[str]:
    """A file's lines redacted as its chunks are (no line joined, dropped or moved): `redact_text`,
    then for a settings file (`settings`) `redact_setting_line` on each line."""
    lines = split_lines(redact_text(text))
    return [redact_setting_line(line) for line in lines] if settings else lines
