"""Secrets named on one line: a literal given to a secret's name, in every syntax the code chunkers read.

An assignment (`password = "…"`, `ApiKey: '…'`, a typed declaration), a config line (`DB_PASSWORD=…`), a call's
pair, setter, define or constructor (`os.putenv("SECRET", "…")`, `new NetworkCredential(user, "…")`), a comparison
(`password.equals("…")`), an ini line with spaces, an XML element or attribute, a URL's or a connection string's
credentials, a CLI flag's argument. Each form is a pattern and a match function that asks secret_values.py whether
the value is a secret; `_redact_line` runs them on one line, each behind a cheap gate (a hint, the starts of
secret-named runs) so a long line is read in linear time (benchmarks/redact_worst_case.py).
"""

from __future__ import annotations

import base64
import functools
import re
from bisect import bisect_right

from .secret_names import (
    REDACTED, _CODE_SECRET_NAME, _FOREIGN_PASSWORD, _IDENT_WORDS, _NOT_A_VALUE, _NOT_SECRET_NAME, _SECRET_CORE,
    _SECRET_CORE_RE, _SECRET_NAME, _last_word, _name_tier, _pass_tier,
)
from .secret_tokens import (
    _AUTH_BARE, _AUTH_HEADER, _BASIC_PLAIN, _BEARER_LITERAL, _COMMAND_CRED, _CS_RULE_HOT, _DOCKER_ENV_SPACE,
    _DOTENV_LINE, _ENV_ASSIGN, _ENV_EXPORT_HINT, _ENV_FLAG_HINT, _ENV_START_HINT, _HEADER_FLAG, _HMAC_KEY, _JWT_KEY,
    _METAVAR, _NODE_KEY, _PRIVATE_CRYPT_KEY, _PROSE_AFTER_FLAG, _RE_HINT_ANY, _RULE_HOT, _SAMPLE_PASSWORDS, _SIGN_KEY,
    _SQL_LOGIN_CALL, _SQL_PASSWORD, _SQL_ROLE_PASSWORD, _TOKEN, _TOKEN_PLACEHOLDER, _apply_rules, _auth_header,
    _command_cred, _dotenv_line, _env_assign, _env_secret_name, _env_value_kept, _header_flag, _replace,
    _sql_login_call, _sql_password, _sql_role_password, _template_pair, _token,
)
from .secret_values import (
    _CONN_CRED, _DOTTED, _FLAG_WORDS, _HEX_ONLY, _IDENTIFIER, _ID_WORDS, _KEY_WORDS, _PASSWORD_OR_SECRET,
    _PASSWORD_WORD, _PLACEHOLDER, _PLACEHOLDER_RUN, _PLAIN_WORD, _PUBLIC_OR_HASH, _REFERENCE_OR_PLACEHOLDER, _SLUG_PART,
    _TEMPLATE_PASSWORDS, _TOKEN_CHARS, _UPPER_ID, _UUID, _WELL_KNOWN_DEV_VALUES, _entropy, _file_name, _hash_name,
    _is_phrase, _label_mapped_to_id, _lexer_comparison, _my_own_part, _names_a_key, _ordinary_but_random,
    _other_reference, _password_like, _sample_words, _template_conn, _template_user, _toggles_itself, _ui_text,
    gpg_key_id, is_benign_value, looks_random, template_key_pair,
)

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
    # (not a string's end and the next argument: a prompt's `print("Enter user secret: ", end="")`, where what
    # follows is read from the next argument's own name: `print("secret: ", secret="…")`)
    r"(?P<q>[\"'`])(?![ \t]*,[ \t]*[A-Za-z_]\w*[ \t]*=[ \t]*(?P=q))(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)"
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
# ... or as a call's last two arguments after one other, a name or a plain string (terraform-provider-vault's
# `TestCheckResourceAttr(resourceName, "password", "…")`, configparser's `config.set("db", "password", "…")`, Redis'
# `hset(key, "password", "…")`): a setter's pair by position. The `(` follows a name (a call, not a tuple), and
# the value closes the call.
_LATER_CALL_PAIR = re.compile(
    r"(?i)(?<=\w)\(\s*(?:[&*$]?[A-Za-z_][\w.]*(?:->\w+)*|(?P<fq>[\"'])[\w./:-]*(?P=fq))\s*,\s*"
    r"(?P<nq>[\"'])(?P<name>" + _SECRET_NAME + r")(?P=nq)\s*,\s*"
    r"(?P<pre>@|[bBrRuU]{1,2})?(?P<q>[\"'`])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)(?=\s*\))"
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
# A list literal of strings under a password's or a secret's name (XVWA's `$pwd = array('21232f29…', …)`, MD5s of its
# users' passwords; `passwords = ['…', …]`, `Set.of("…")`): an item that looks generated (a hash, a key) is redacted,
# words stay (round 23's `String[] SECRETS = {"secret", "admin"}`: a list of names).
# (the opener found first, its name read in the 80 characters before it: a name's run of 60,000 characters is read
# once, not from each of its characters)
_LIST_OPEN = re.compile(
    r"(?:=>|:=|=|:)[ \t]*"
    r"(?:array[ \t]*\(|\[|(?:new[ \t]+[\w.<>]{1,80}[ \t]*\[[ \t]*\][ \t]*)?\{|(?:[\w.]{0,80}\.)?(?:of|asList)[ \t]*\()")
_LIST_NAME = re.compile(r"([$@]?[A-Za-z_][\w.]*)[\"']?[ \t]*$")
_ARRAY_DECL = re.compile(r"\[[ \t]*\][ \t]+$")
_LIST_ITEM = re.compile(r"""(["'])([^"'\n]{12,200})\1""")


def _secret_list(line: str, m: re.Match[str]) -> str:
    """The name before the opener `m` where it is a password's or a secret's list's, else ''."""
    named = _LIST_NAME.search(line, max(0, m.start() - 80), m.start())
    name = named.group(1) if named else ""
    if not _PASSWORD_OR_SECRET.search(name) or _NOT_SECRET_NAME.search(name) or (
            # a brace is a Java array's only after `[]` (`String[] SECRETS = {…}`): else an object, whose members
            # have names of their own (Cloud Foundry's `"credentials":{"name":"d04fb13d…"}`)
            m.group(0).endswith("{") and "new" not in m.group(0)
            and not _ARRAY_DECL.search(line, max(0, named.start() - 40), named.start())):
        return ""
    return name


def _list_items(line: str) -> str:
    """The generated items of each secret-named list literal on the line redacted (_LIST_OPEN).

    Every opener under such a name is read, not only the line's first (`x = [1]; passwords = […]`) or the first secret's
    (`passwords = ["…"]; secrets = ["…"]`, a minified bundle's `p0={passwords:["…"]};p1={passwords:["…"]}`). An
    opener's items run to the next opener, whatever its name (`passwords = […], ids = ["…"]`: the ids are not the
    secret's), so the openers divide the line and each character is read once.
    """
    opens = list(_LIST_OPEN.finditer(line))
    if not opens:
        return line
    parts = [line[:opens[0].start()]]
    for at, m in enumerate(opens):
        end = opens[at + 1].start() if at + 1 < len(opens) else len(line)
        region, name = line[m.end():end], _secret_list(line, m)
        if name:
            region = _LIST_ITEM.sub(functools.partial(_list_item, region, name=name), region)
        parts.append(m.group(0) + region)
    return "".join(parts)


def _list_item(region: str, found: re.Match[str], name: str) -> str:
    """One item of a secret-named list, redacted where it looks generated and is one of the list's own items."""
    value = found.group(2)
    # the list's own items only, between its opener or `,` and `,` or its closer: an object's member inside
    # (Kratos' WebAuthn `"credentials":[{"id":"THTndqZP…"`) has a name of its own, a call's argument is a call's
    # (read in a window of 64 characters each side: a slice to the line's start per item was quadratic)
    before = region[max(0, found.start() - 64):found.start()].rstrip()[-1:]
    after = region[found.end():found.end() + 64].lstrip()[:1]
    if before not in ("", ",") or after not in ("", ",", "]", ")", "}") or (
            REDACTED in value or not looks_random(value) or is_benign_value(value, name)):
        return found.group(0)
    return found.group(1) + REDACTED + found.group(1)


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
    r"(?P<name>\b[A-Za-z_$][\w$]{0,100}?(?:[A-Za-z0-9]_(?i:pass|pw)|[a-z0-9]Pass|[A-Z0-9]PASS|[a-z]pass|[A-Za-z](?i:pw))|"
    r"\b(?i:pass)[0-9]{1,2}\b)"
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

# A connection string: at least two `;`-separated `name=value` parts (one
# part alone is as likely a statement: `user = get_user();`).
# (the `;` of `&amp;`, a URL's query written in XML or HTML, separates nothing; `Password=Tr0ub4dor&3;` ends at `;`)
# (a template's hole is a part's whole value: `AccountName=x;AccountKey=<key>;SharedAccessSignature=sv=…&sig=…`, the
# parts after it read too)
_CONN_PAIR = r"[ \t]*[A-Za-z][\w .]{0,40}=(?:<[\w .-]{1,60}>(?=;|$)|[^;\n\"'<>&]*(?:&(?!amp;)[^;\n\"'<>&]*)*)"
_CONN_STRING = re.compile(rf"(?:{_CONN_PAIR};)+{_CONN_PAIR};?")

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
# (at most sixteen between: read lazily to the end of a line from each `value=`, a run of 6,000 `value="x"` after a
# secret's label took 4 s; real elements keep a few)
_XML_ATTRS = r"""(?:\s+[\w:.-]+\s*=\s*(?:"[^"\n]*"|'[^'\n]*')){0,16}?"""
_XML_PAIRS = tuple(re.compile("(?i)" + pattern.replace("{core}", _SECRET_CORE)) for pattern in (
    r"\b(?:key|name)\s*=\s*" + _XML_NAME + _XML_ATTRS + r"\s+value\s*=\s*" + _XML_VALUE,
    r"\bvalue\s*=\s*" + _XML_VALUE + _XML_ATTRS + r"\s+(?:key|name)\s*=\s*" + _XML_NAME,
))

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

# The value's type in a Go command's help (cobra's and pflag's `--encryption-key string   the storage encryption key
# to use`): a type's name, then the description after two blanks or more.
_FLAG_TYPES = frozenset("string strings stringArray stringSlice stringToString int int32 int64 uint uint32 uint64 bool "
                        "duration float32 float64 bytesHex bytesBase64 ip ipNet".split())
_FLAG_TYPE_GAP = re.compile(r"[ \t]{2,}\S")
_HELP_MORE = re.compile(r"[ \t]+[A-Za-z]")

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


def _redacted_as_assignment(name: str, value: str) -> bool:
    """Would `name = "value"` on one line be redacted? How a pass whose name and value stand on different lines
    judges the value: by the one-line rules, so a placeholder, a reference or a name no secret's keeps it."""
    probe = f'{name} = "{value}"'
    return _redact_line(probe) != probe


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


def _url_cred(m: re.Match[str]) -> str:
    """`scheme://user:password@`, unless the password is a mask or a variable (`user:*****@`, `u:$password@`,
    `u:{pwd}@`), GitHub's fixed `x-oauth-basic` after a token that is a variable, template expressions split at
    their own `:` (_URL_USERINFO_HOLES), a regular expression or a syntax's optional part as the user, a syntax's
    words as both (_TEMPLATE_USERS, _TEMPLATE_PASSWORDS) or a key's names as both (template_key_pair)."""
    password = m.group(3)
    # (GitHub's fixed `x-oauth-basic` after a token that is a variable, `${TOKEN}:x-oauth-basic@`, holds nothing)
    if _URL_PASSWORD_HOLE.fullmatch(password) or (
            password == "x-oauth-basic" and _URL_PASSWORD_HOLE.fullmatch(m.group(2))) or (
            m.group(2).count("{") > m.group(2).count("}") and _URL_USERINFO_HOLES.fullmatch(f"{m.group(2)}:{password}")
            or "|" in m.group(2) or m.group(2).startswith(("[", "(")) and not m.group(2).startswith(REDACTED)) or (
            _template_user(m.group(2).rsplit(";", 1)[-1]) and password.lower() in _TEMPLATE_PASSWORDS) or (
            _URL_PASSWORD_PLACEHOLDER.fullmatch(password)) or template_key_pair(m.group(2), password):
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
# no secret; a variable escaped for a shell, feast's `url."https://api:\${TOKEN}@github.com/"`)
_URL_PASSWORD_HOLE = re.compile(r".|\*{2,}|x{3,}|X{3,}|\\?\$\{?[A-Za-z_]\w*\}?|\{\{+[^{}]*\}\}+|%[A-Za-z_]\w*%|"
                                r"<[^<>]*>|\{\d+(?:,-?\d+)?(?::[^{}]*)?\}|\{[ \t]*[A-Za-z_][\w.]*[ \t]*\}|"
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
                                r"\[[A-Za-z][A-Za-z_ -]*\]|[()]*\.[*+][()]*|"
                                # a scanner's mask between signs (DefectDojo's `postgres://postgres:---REDACTED---@`)
                                r"[^\w\s:@/]{2,}(?i:redacted|hidden|masked|removed)[^\w\s:@/]{2,}")


# A URL's user and password that are template expressions or format holes whose own `:` split them wrongly (the
# user's `{` left open: serverless' `${self:custom.db.username}:${self:custom.db.password}@`, Python's `{:s}@`; not
# a shell default's literal, `${DB_PASSWORD:-Y6BV…}`; a named hole, `{user}:{password}@`, splits right and its
# password is _URL_PASSWORD_HOLE's); a user holding `|` is a regular expression's alternation
# (`(sqlserver://|mongodb://|oracle:thin:@)localhost`).
_URL_USERINFO_HOLES = re.compile(r"(?:\$\{(?![^{}\n]*:[-=])[^{}\n]*\}|\{(?::[^{}\n]*)?\}|:)+")

_CONN_BIND_USER = re.compile(r"[:@?][A-Za-z_]\w*")


def _conn_part(m: re.Match[str]) -> str:
    value = m.group(3).strip()
    # a bind parameter for the user (`User Id=:username`, `user=@user`): any name (a password's must name it)
    if _CONN_BIND_USER.fullmatch(value) and m.group(2).strip()[:1].lower() in ("u",):
        return m.group(0)
    # a template's part (`Password=your_password`, `Pwd=${DB_PASS}`, `Password=xxxxxxxx`) says where one goes
    if not value or _REFERENCE_OR_PLACEHOLDER.match(value) or _PLACEHOLDER_RUN.search(value) or (
            _REFERENCE_OR_PLACEHOLDER.match(value.split()[0])) or _OPEN_HOLE.fullmatch(value) or (
            value in _WELL_KNOWN_DEV_VALUES) or _my_own_part(value, m.group(2)):  # Azurite's published account key
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


# What follows a string that ends in a name and `=` or `: ` when it is a concatenation, not an assignment
# (`"MasterUserPassword: " + getPassword()`, `'password = '.$p[…]`): an operator, then code: a call, an index, a
# statement's end (a minified `"&session_token="+session_token;…`), or an operator again where the string resumes
# (PHP's `"password=".DB_PASSWORD."\n"`); a class's static call (`'.  WPTC_Factory::get('`)
_CONCAT_VALUE = re.compile(
    r"\s*(?:\+|\.|&|\|\|)\s*(?:new\s|[$@(\[]|[A-Za-z_](?:[\w.]|::|->)*\s*[(\[]"
    # (a constant's or a variable's name of one case: `.Zq8vN3xL0pR7tY2w.` is a value between dots)
    r"|(?:[A-Z][A-Z0-9_]*|[a-z_][a-z0-9_]*)\s*(?:;|(?:\+|\.)\s*$))")


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
    if match.group("name")[:1] in "\"'" and match.group("op").strip() == "=" and (
            match.string[:match.start()].rstrip().endswith("|")):
        return match.group(0)  # a union's last member and its default (`type: "sign-in" | "forget-password" = "…"`)
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
    if _CONCAT_AFTER.match(match.string, match.end()) and (
            # a concatenation's head ending in a blank (`tokenText = "<missing " + kind + ">"`), or an auth scheme's
            # name and a blank (Kong's Lua `creds = "Basic " .. ngx.encode_base64(…)`)
            (value[-1:].isspace() and re.search(r"[^A-Za-z0-9]", value.strip())
             and not _PASSWORD_WORD.search(match.group("name"))) or _SCHEME_HEAD.fullmatch(value)
            # words before a variable (`secret_content="secret for bookTitle" + randomint`), a phrase
            or _WORDS_HEAD.fullmatch(value)
            # a connection string's one key, its value the variable (WebGoat.NET's `"Data Source=" + GoatDBFile`)
            or _CONN_KEY_HEAD.fullmatch(value)):
        return match.group(0)
    if value.startswith("${") and "}" not in value:
        return match.group(0)  # a template's expression cut at a quote inside it (`'${hash(req.body.password || '')}'`)
    if match.group("op") == "=" and _BINDING_HEAD.search(match.string, max(0, match.start() - 8), match.start()):
        return match.group(0)  # a template's binding, an expression (Angular's `[password]="password.value"`)
    if _BOUND_VALUE_OP.fullmatch(match.group("op")) and value[:1] not in ("'", "`"):
        # ... or the bound value after a secret's label (Jetstream's `<JetLabel for="password"
        # :value="$t('Password')"`); a string in it is a literal (`:value="'hunter2'"`)
        return match.group(0)
    if value[:1].isspace() and match.group("op").strip() == ":" and (
            _SHELL_JOIN.search(value) or value.rstrip().endswith("=")):
        # a string's closing quote after its `:` (`grep "^FROM org/wrongsecrets:" f | cut …`, an attribute's
        # `name="Check Dave's Password:" value="…"`, `title="Password: " required="true"`)
        return match.group(0)
    if match.group("name")[:1] == match.group("q") and match.group("name")[-1:].isalnum() and (
            match.group("op").strip() == ":" and re.match(r"[)+,.;]", value)
            # (or a name and its `=` quoted, what a program looks for: dotenvx's `Select-String 'DOTENV_PRIVATE_KEY=')
            # -split '='`, `"… private key 'DOTENV_PRIVATE_KEY='. fix: …"`)
            or match.group("op") == "=" and re.match(r"[),;]|\.\s", value)):
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
# A concatenation after a literal, JavaScript's `+` or Lua's `..`, then a name.
_CONCAT_AFTER = re.compile(r"\s*(?:\+|\.\.)\s*[A-Za-z_$]")
_SCHEME_HEAD = re.compile(r"(?i)(?:basic|bearer|token|digest)[ \t]+")
# A table's literal index read as the name's last word (`credentials["username"]` as `credentials_username`: no secret)
_INDEX_JOIN = re.compile(r"\[[\"']([\w.@-]+)[\"']\]")
# A name whose secret's word is a storage key, no other (`storageKey`, `storage-key`): an Azure account's key is 88
# characters of base64; a name of letters is a slot in a browser's storage.
_STORAGE_KEY_NAME = re.compile(r"(?i)^[\"']?(?:(?!secret|passw|token|cred|auth|api)[\w.-])*?storage[_-]?key[\"']?$")
_CONN_KEY_HEAD = re.compile(r"[A-Za-z][A-Za-z ]{0,30}=")
# An HTML template's attribute binding before a name (Angular's `[password]=`, Vue's `:password=`, `v-bind:token=`).
_BINDING_HEAD = re.compile(r"(?:^|\s)(?:\[|:|v-bind:)$")
_BOUND_VALUE_OP = re.compile(r"\s+(?::|v-bind:|\[)value\]?\s*=\s*")
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


# A Terraform resource's address (a provider's type, `.`, its name; a data source's after `data.`) and an attribute's
# path in its state (`policy_arns.#`, `allowed_ports.*`, `service_account_names.0`).
_TF_ADDRESS = re.compile(r"(?:data\.)?[a-z][a-z0-9]*(?:_[a-z0-9]+)+\.[A-Za-z0-9_-]+")
_TF_ATTRIBUTE = re.compile(r"[a-z_][a-z0-9_]*(?:\.(?:[a-z0-9_]+|[#%*]))*")


_PLAIN_VALUE = re.compile(r"[a-z]+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z]+(?:[_-][A-Z]+)*|[0-9]{1,8}|[0-9]+(?:\.[0-9]+)+")
_TF_PATH_CHARS = re.compile(r"[a-z0-9_.#%*]{5,200}")
# A value's bare word as an attribute's last part: what it is, the part before it says.
_VALUE_WORDS = frozenset("value values data content contents plaintext text string".split())


def _state_leaf(name: str) -> str | None:
    """The attribute an attribute's path in a Terraform resource's state names through a block's index
    (`settings.0.http.0.bearer_token`, `spec.0.volume.0.secret.0.items.0.key`; a list's item, Cloudflare's
    `token_sources.0`): its last part not an index, or the part before a value's bare word (`secret.0.value` is a
    secret's); None for another name. (Split, not one pattern: a path's every index would be a place to backtrack
    from.)"""
    if not _TF_PATH_CHARS.fullmatch(name):
        return None
    parts = name.split(".")
    if len(parts) < 2 or not all(parts) or not parts[0][0].isalpha() or not any(
            part.isdigit() or part in "#%*" for part in parts[1:]):
        return None
    named = [part for part in parts if part[0].isalpha() or part[0] == "_"]
    return named[-2] if len(named) > 1 and named[-1] in _VALUE_WORDS else named[-1]


def _quoted_call(match: re.Match[str]) -> str:
    value, name = match.group("value"), match.group("name")
    if match.re is _LATER_CALL_PAIR and _PLAIN_VALUE.fullmatch(value):
        # By position the name is less sure to be one, so the value must look more like a secret: a word of
        # lower-case letters, a name of them joined by `_`, an upper-case constant, a number of eight digits at most
        # or a version is kept (a resource's type and name, `BuildTestData(t, "azuread_application_password",
        # "test")`; a key and its data, `genSha(t, "secret", "data")`; three fields' names,
        # `ssoValidateInterdependencyXOR("client_id", "client_secret", "token_url")`; a setting's word,
        # `TestCheckResourceAttr(name, "password_change", "ALLOW")`)
        return match.group(0)
    leaf = _state_leaf(name)
    if leaf is not None:
        # judged by the attribute's own name (`security_and_analysis.0.secret_scanning.0.status`, "enabled": a status)
        if not _SECRET_CORE_RE.search(leaf):
            return match.group(0)
        name = leaf
    if value.rstrip().endswith(":") and _CONCAT_AFTER.match(match.string, match.end()):
        return match.group(0)  # a label before what it joins (Kong's `hmac_sha1_binary("secret", "date: " .. date)`)
    if match.re is _CONST_CALL_PAIR:
        # (a constant naming the field: its value is the field's, `addHeader(SECRET_HEADER_NAME, "…")` a header's)
        name = _CONST_NAME_END.sub("", name)
    if match.re in (_CALL_PAIR, _LATER_CALL_PAIR) and _builder_word(match):
        return match.group(0)
    if _TF_ADDRESS.fullmatch(name) and _TF_ATTRIBUTE.fullmatch(value):
        # a Terraform test's check of a resource's attribute by its name (terraform-provider-vault's
        # `TestCheckResourceAttr("vault_aws_secret_backend_role.test", "backend", backend)`)
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
    # a Kubernetes Secret named, its object's methods called on it (1Password's operator's e2e tests'
    # `kubeClient.Secret("login").Get(ctx)`, jsonnet's `kube.Secret("wordpress") {`): a name of lower-case words
    if match.group("name") == "Secret" and _K8S_NAME.fullmatch(value) and _OBJECT_AFTER.match(match.string, match.end()):
        return match.group(0)
    return _quoted_call(match)


_K8S_NAME = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?")
_OBJECT_AFTER = re.compile(r"\.[A-Za-z_]|[ \t]*\{")


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
    if REDACTED in value or _TOKEN_PLACEHOLDER.search(value) or _REFERENCE_OR_PLACEHOLDER.match(value) or (
            value in _WELL_KNOWN_DEV_VALUES):
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


_KEY_STATUS = re.compile(r"[a-z]+(?:-[a-z]+)*")


def _hmac_key(match: re.Match[str]) -> str:
    value = match.group("value")
    if REDACTED in value or _TOKEN_PLACEHOLDER.search(value) or is_benign_value(value, "hmac_key") or re.fullmatch(
            r"(?i)(?:my|some|the|a)?[_-]?(?:secret|token|key|password|hmac)s?", value) or (
            # (a helper of the same name given a key's id or status, logto's tests' `createPrivateKey('current', 2,
            # …)`: Node's createPrivateKey reads a PEM or DER, never lower-case words)
            match.group(0).startswith("createPrivateKey") and _KEY_STATUS.fullmatch(value)):
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
    # the first of `;`-separated pairs (`"password=:password;user=:user;"`): its value ends at the `;`
    head, sep, rest = re.match(r"([^;&]*)([;&]?)(.*)", value).groups()
    if sep == "&" and _QUERY_REST.fullmatch(rest):
        # a query string's pairs (pocketbase's S3 test, `"continuation-token=test_ct&delimiter=…&prefix=…"`): each
        # value ends at its `&` and is judged under its own name (`"token=hunter2&user=admin"` keeps
        # `user=admin`; `"password=?&secret=…"` finds the secret after the placeholder)
        out = [_query_value(name, head)]
        for pair in rest.split("&"):
            key, _, val = pair.partition("=")
            out.append(f"{key}={_query_value(key, val)}")
        start, end = match.span("value")
        return match.group(0)[:start - match.start()] + "&".join(out) + match.group(0)[end - match.start():]
    if value == REDACTED or not _env_secret_name(name) or (
            # (BuildKit's secret mount as one option: BentoML's `"secret=id=aws,src=$HOME/.aws/credentials"`)
            _SECRET_NAME_FLAG.fullmatch("-" + name) and _MOUNT_SPEC.fullmatch(value)) or (
            is_benign_value(value, name)) or (sep and "=" in rest and (
                is_benign_value(head, name) if sep == ";" else _REFERENCE_OR_PLACEHOLDER.match(head))):
        return match.group(0)
    return _replace(match, "value")


# What follows a query's first pair: more pairs of a name and a value (`delimiter=x&list-type=2`).
_QUERY_REST = re.compile(r"[A-Za-z_][\w.-]*=[^&=]*(?:&[A-Za-z_][\w.-]*=[^&=]*)*")


def _query_value(name: str, value: str) -> str:
    """A query pair's value, redacted where its name is a secret's and the value no placeholder (a word is a value
    there: Sonar's `"token=bacdefghijklmnopqrs&user=admin"`)."""
    if not value or value == REDACTED or not _env_secret_name(name) or _REFERENCE_OR_PLACEHOLDER.match(value):
        return value
    return REDACTED


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
            or _ui_text(bare, label="." in name)
            or _toggles_itself(bare, name) or _sample_words(bare, name) or gpg_key_id(bare, name)):
        return match.group(0)
    return _replace(match, "value")


def _xml_pair(match: re.Match[str]) -> str:
    name = match.group("n1") if match.group("n1") is not None else match.group("n2")
    group = "v1" if match.group("v1") is not None else "v2"
    value = match.group(group)
    # (a value cut by its quotes before code, as _quoted reads one: WP Time Capsule's `value='.  WPTC_Factory::get(`)
    if not value or value == REDACTED or _PLACEHOLDER.search(value) or _NOT_SECRET_NAME.search(name) or (
            is_benign_value(value, name)) or _CONCAT_VALUE.match(value):
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
            _NOT_SECRET_NAME.search(match.group("flag"))) or gpg_key_id(value, match.group("flag")) or (
            # what to generate one from (1Password's `op item edit --generate-password=letters,digits,symbols,32`)
            "generate" in match.group("flag") and _GENERATE_RECIPE.fullmatch(value)) or (
            # a secret's path in a store after a secret's flag (envconsul's `-secret="mysql/creds/readonly"`, Vault's
            # `-secret secret/my-app`): lower-case words joined by `/`
            _SECRET_FLAG.search(match.group("flag")) and _STORE_PATH.fullmatch(value)) or (
            # ... or a stored secret's name after `--secret` alone (BentoML's `bentoml deploy --secret huggingface`,
            # Docker Swarm's and Podman's `--secret my_secret`): letters and `-` or `_`, no digit
            _SECRET_NAME_FLAG.fullmatch(match.group("flag")) and _LETTERS_NAME.fullmatch(value)) or (
            group == "v" and value in _FLAG_TYPES and _FLAG_TYPE_GAP.match(match.string, match.end())) or (
            # a help's description after a tab or two blanks (secretless' `-P,--password \t\t\tdatabase password`)
            group == "v" and value.isalpha() and value.islower() and (
                "\t" in match.group("op") or len(match.group("op")) > 1) and _HELP_MORE.match(
                    match.string, match.end())) or (
            "onnection" in match.group("flag") and "=" in value) or _MOUNT_SPEC.fullmatch(value) is not None or (
            # a key's file after a key's flag (`kubeseal --recovery-private-key k8s/main.key`), or files listed
            # (`file1.key,file2.key,...`)
            _file_name(value) or _file_list(value)) or (
            _PLACEHOLDER_RUN.search(value) or _TOKEN_PLACEHOLDER.search(value)) or (
            # a prefix before a placeholder (`--token=sha256~<token>`, `--key=ak_${KEY}`)
            group == "v" and match.string[match.end():match.end() + 1] in ("<", "{", "$")):
        return match.group(0)
    return _replace(match, group)


_SECRET_FLAG = re.compile(r"(?i)(?<![a-z])secrets?$")
_SECRET_NAME_FLAG = re.compile(r"-{1,2}secrets?")
_LETTERS_NAME = re.compile(r"[a-z]+(?:[-_][a-z]+)*")
_STORE_PATH = re.compile(r"[a-z][a-z0-9_-]*(?:/[a-z0-9][a-z0-9_.-]*)+/?")
_GENERATE_RECIPE = re.compile(r"(?:letters|digits|symbols|[0-9]{1,3})(?:,(?:letters|digits|symbols|[0-9]{1,3}))*")


def _file_list(value: str) -> bool:
    """Files' names joined by `,`, maybe an ellipsis for more (sealed-secrets' `--recovery-private-key
    file1.key,file2.key,...`)."""
    parts = value.split(",")
    return len(parts) > 1 and all(_file_name(p) or p in ("...", "\u2026") for p in parts) and _file_name(parts[0])


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
    # (a shell's line continuation after the value, `PASSWORD=$PASSWORD \\` in BentoML's `bentoml secret create`, is no
    # part of it; a value redacted keeps it, so the command still reads as one)
    cont = ""
    if value.endswith("\\") and value[-2:-1] in (" ", "\t"):
        body = value[:-1].rstrip(" \t")
        value, cont = body, value[len(body):]
    # (a YAML key with no value, only a comment after it: oauth2-proxy's `secretKeys:  # Exclude client-secret`)
    if match.group("op")[0] == ":" and _COMMENT_ONLY.match(value) or _NOT_A_VALUE.search(value) or (
            _NOT_SECRET_NAME.search(match.group("name"))) or is_benign_value(value, match.group("name")) or (
            _url_with_hole(value)):
        return match.group(0)
    return f"{match.group('lead')}{match.group('name')}{match.group('op')}{REDACTED}{cont}"


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


# external-secrets' data item written as YAML, in a manifest read as text or a document's example (`- secretKey:
# db-password` then its `remoteRef`): a list item led by `secretKey`, its value a key's name (letters, digits, `_`,
# `-`, `.`), a comment after it. MinIO's `secretKey: minio123` is no list item's first key.
_ES_DATA_ITEM = re.compile(r"[ \t]*-[ \t]+secretKey:[ \t]+[\"']?(?P<v>[A-Za-z][\w.-]{0,62})[\"']?[ \t]*(?:#[^\n]*)?\r?")
# Google Cloud's reference to a Secret Manager secret by its name and version, read as text (Cloud Run's
# `"secretKeyRef": {"secret": "prefect-api-key", "version": "latest"}`, Prefect's `SecretKeySelector(
# secret="prefect-auth-string", version="latest")`): the secret's name, no value.
_GCP_SECRET_REF = re.compile(
    r"[ \t]*(?:[\"'][\w-]{1,60}[\"'][ \t]*:[ \t]*)?(?:[\w.]{1,60}\(|\{)?[ \t]*[\"']?secret[\"']?[ \t]*[:=][ \t]*"
    r"[\"'](?P<v>[A-Za-z][\w-]{0,254})[\"'][ \t]*,[ \t]*[\"']?version[\"']?[ \t]*[:=][ \t]*[\"']?(?:latest|[0-9]{1,6})"
    r"[\"']?[ \t]*[)}]{0,2}[ \t]*,?[ \t]*\r?")


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
    if "secretKey:" in line and (es := _ES_DATA_ITEM.fullmatch(line)) and not looks_random(es.group("v")):
        return line  # (external-secrets' data item: the target Secret's key, a name; a form was read above)
    if "version" in line and (ref := _GCP_SECRET_REF.fullmatch(line)) and not looks_random(ref.group("v")):
        return line  # (Google Cloud's reference to a secret: its name; a form was read above)
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
    if secret and ("[" in line or "{" in line or "(" in line) and (
            "passw" in low or "pwd" in low or "secret" in low or "pword" in low or "passphrase" in low):
        line = _list_items(line)
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
        if line.count(",") > 1:
            line = _LATER_CALL_PAIR.sub(_quoted_call, line)
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
    if ("pass" in low or "pw" in low) and ("=" in line or ":" in line) and ('"' in line or "'" in line or "`" in line):
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
