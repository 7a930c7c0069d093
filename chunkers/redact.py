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

Where the parts live: secret_names.py (what names a secret), secret_values.py (whether a value is one by its
look), secret_tokens.py (secrets by their form: the rule table, headers, environment lines), secret_lines.py (a
literal under a secret's name on one line), secret_blocks.py (forms spanning lines). This module runs them over a
text (`redact_text`) and a parsed value (`redact_value`), and keeps what a chunk's views need (`cut_redacted`,
`redact_pieces`).
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from bisect import bisect_left, bisect_right
from dataclasses import replace
from itertools import accumulate
from operator import attrgetter
from typing import Any

from .model import ChunkPiece, ChunkSymbol
from .secret_blocks import (
    _DER_KEY_HEAD, _PLIST_KEY_STRING, _YAML_BLOCK_PASSWORD, _YAML_BLOCK_SECRET, _b64_pem_changes, _block_changes,
    _cfn_default_changes, _der_key_changes, _escaped_pair_changes, _k8s_env_changes, _list_item_changes,
    _may_be_secret_kind, _next_line_changes, _parent_value_changes, _pem_changes, _plist_pair_secret, _redacted_spans,
    _split_call_changes, _tf_default_changes, _xml_key_changes, _xml_key_value_changes, _yaml_block_password_changes,
    _yaml_block_secret_changes,
)
from .secret_lines import (
    _CALL_HINT, _LABELLED_CODE, _METHOD_CALL, _SETTER_HINT, _SET_WORD, _key_bytes_hint, _redact_line,
)
from .secret_names import (
    REDACTED, _IDENT_WORDS, _LABEL_HINT, _NOT_SECRET_NAME, _last_word, _name_tier, _secret_name,
)
from .secret_tokens import _CS_RULE_HOT, _FORM_HINT, _HINT_RULES, _RE_HINT_ANY, _RE_HINT_GROUPS, _RULE_HOT, _trie
from .secret_values import (
    _last_name, _no_generated_piece, _ordinary_but_random, _path_parts, is_benign_value, looks_random,
)
from .text import line_table, split_lines


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

# What a key's value is, said by its name: a location (`secrets: {ssl-ca: {file: ca.crt}}`, Compose's), an address
# (`secrets: {db: {host: db.internal}}`, Spring's `keyvault.secret.property-sources[0].endpoint`) or a name, never a
# secret because its section holds them.
_LOCATION_WORDS = frozenset("file path dir directory url uri location host hostname port endpoint server address addr "
                            "name username user login email "
                            # (and a record's own fields: dex's `staticPasswords: [{userID: …, groups: [team-a]}]`,
                            # Keycloak's `credentials: [{id: …, createdDate: 1591297959315}]`)
                            "id ids uuid group groups date "
                            # (Jenkins' `credentials: [{string: {scope: GLOBAL, secret: …}}]`)
                            "scope scopes "
                            # (Ory Kratos' `credentials: {password: {identifiers: [user@example.com]}}`)
                            "identifier identifiers "
                            # (where a credential comes from: Secretless Broker's `password: {from: conjur, get: …}`,
                            # its Kubernetes resource's `credentials: [{provider: literal}]`)
                            "from provider "
                            # (vault-examples' `vault.database.credential.source=dynamic`)
                            "source origin "
                            # (a domain's hosts: Jenkins' `hostnameSpecification: {includes: "*.test.com"}`)
                            "includes excludes "
                            # (the namespace of a Secret it names: Kasten's `credential: {secret: {namespace: …}}`)
                            "namespace".split())
# A credential's fields that say which database, schema or warehouse it opens, as which role, with which driver (dlt's
# `destination: {clickhouse: {credentials: {database: dlt_data}}}`): judged by their look in a credential's section
# only (`secrets: {db: …}`, `ConnectionStrings: {Database: …}` name a secret or a connection string).
_CREDENTIAL_FIELDS = frozenset("database db schema catalog warehouse role drivername driver".split())
# A parameter's or a schema's attributes (CloudFormation's `Parameters: {DBPassword: {Type: String, MaxLength: 41,
# NoEcho: true}}`, a JSON Schema's `password: {type: string, minLength: 8}`, an XML element's `class`): what the secret
# is like, not the secret; judged by themselves under a section of secrets (its `Default` stays the secret's).
_SCHEMA_WORDS = frozenset("type minlength maxlength noecho description allowedpattern allowedvalues "
                          "constraintdescription pattern format title minimum maximum nullable sensitive class "
                          # (an MSBuild element's `Condition`)
                          "condition "
                          # (an AWS API model's member: its type's name, its documentation, its required members'
                          # names: botocore's `shapes: {ApiKeyCredential: {members: {apiKey: {shape:
                          # "SensitiveString2048"}}}}`)
                          "shape documentation required "
                          # (its operation's HTTP binding and its output's wrapper, its paginator's fields: botocore's
                          # `GetClusterCredentials: {http: {responseCode: 200}, output: {resultWrapper: …}}`,
                          # `ListSecrets: {limit_key: MaxResults}`)
                          "method requesturi responsecode resultwrapper input_token output_token limit_key result_key "
                          "more_results".split())
_SCHEMA_VALUE_WORDS = frozenset(("default", "example", "examples", "const", "enum", "value"))
# A JSON Schema's maps of named schemas: its fields and its definitions.
_SCHEMA_MAPS = frozenset(("properties", "patternProperties", "$defs", "definitions"))
# Collections of named units (a workflow's `jobs`, Compose's `services`, `volumes`, `networks`): a unit's name says
# what the unit is or runs (`jobs: {git-secrets: {runs-on: …}}`, a job running that scanner), not that its keys are
# secrets.
# (and a Helm repository's index: `entries: {kubernetes-external-secrets: [{keywords: […]}]}` lists a chart's versions)
_UNIT_COLLECTIONS = frozenset("jobs services volumes networks tasks stages workflows targets entries".split())
# A scanner's finding's fields in a report's list of secrets (is_secret_key).
# (not its `line`, `description` or `snippet`: gitleaks' `line` quotes the secret's source line)
_FINDING_FIELDS = frozenset("severity confidence tags tag detector category status filepath beginline endline "
                            "startline linenumber column offset".split())
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
    # Secretless Broker's `get`: its credential's value or where it is kept, judged as that credential is
    # (`password: {from: literal, get: test}` is a password, `host: {from: literal, get: pg}` a host)
    if len(parts) >= 2 and parts[-1].lower() == "get" and not parts[-2].isdigit():
        parts = parts[:-1]
    named = [p for p in parts if not p.isdigit()]
    if _selects_a_key(named):
        return False
    if _record_key(parts, named):
        return _in_secret_section(named)
    if len(named) >= 2 and (named[-1] == "keys" and named[-2].lower() in _LOGGING_SECTIONS or (
            # a Secret volume's items name its keys and their files (`secret: {items: [{key: REGISTRY_HTPASSWD,
            # path: passwd}]}`)
            named[-1].lower() in ("key", "path") and named[-2].lower() == "items")) or (
            # an Android preference's key (`<EditTextPreference android:key="server_preference">`): the name it is
            # stored under, judged by what it looks like
            named and named[-1].lower().lstrip("@") in ("android:key", "app:key")):
        return False
    if named and _secret_name(named[-1])[0]:
        return True
    # (what a scanner's report says of a secret it found, in its list of them: xygeni's `secrets: [{severity: low,
    # confidence: high, tags: [in-repo], location: {filepath: …, beginLine: 12}}]`; the secret's own fields, `key`
    # or `value`, stay judged as secrets)
    if named and named[-1].lower() in _FINDING_FIELDS and any(
            p.lower() == "secrets" and parts[i + 1].isdigit() for i, p in enumerate(parts[:-1])):
        return False
    # (a location's name, `file: ca.crt`; a name that says it names a secret, Kubernetes' `secret: {secretName: …}`;
    # a package's, `"@inquirer/password": "^4.0.21"`: judged by what they say, not by their section)
    if named and (_last_word(named[-1]) in _LOCATION_WORDS or _NOT_SECRET_NAME.search(named[-1]) or (
            named[-1].lower().lstrip("@") in _SCHEMA_WORDS) or (
            len(named) >= 2 and _last_word(named[-1]) in _CREDENTIAL_FIELDS and (
                _last_word(named[-2]) in ("credentials", "credential", "creds")))):
        return False
    return _in_secret_section(named)


def _selects_a_key(named: list[str]) -> bool:
    """Does the path name where a Kubernetes Secret keeps a value, not hold it? A `key` or `name` below a reference
    (`secretKeyRef: {key: username}`, external-secrets' `authSecretRef: {clientId: {key: ClientID}}`, three names
    up at most), a `key` below a Secret's name (`existingSecret: {key: fastly-api-token}`, `usernameSecret: {key:
    username}`), below a credential's field (prometheus-operator's `basicAuth: {username: {name: smsecret, key:
    user}}`) or an extract's (external-secrets' `dataFrom: [{extract: {key: my-secrets-prod}}]`), and
    external-secrets' `secretKey` in a resource's spec or status (`spec: {data: [{secretKey: db-password,
    remoteRef: …}]}`): the target Secret's key. A key's name there, generated or not (a Keeper record's id), is no
    secret; a secret's form is still redacted (redact_text reads every value after)."""
    if len(named) < 2:
        return False
    last = named[-1]
    if last == "secretKey":
        return any(p in ("spec", "status") for p in named[:-1])
    if last.lower() == "name":
        return _last_word(named[-2]) == "ref"
    if last.lower() != "key":
        return False
    parent = named[-2]
    words = [w.lower() for w in _IDENT_WORDS.findall(parent)]
    # (and a label selector's key, a NetworkPolicy's `namespaceSelector: {matchExpressions: [{key: namespace}]}`, an
    # affinity's `labelSelector` where a template read line by line loses `matchExpressions`; a Secret volume's or a
    # projected source's `secret: {items: [{key: jenkins-admin-user, path: …}]}`)
    return any(_last_word(p) in ("ref", "reference") for p in named[-4:-1]) or parent.lower() in (
        "extract", "matchexpressions", "matchfields", "items") or _last_word(parent) == "selector" or (
        len(words) >= 2 and words[-1] == "secret") or (
        _secret_name(parent)[0] and _last_word(parent) not in _KEYED_SECTIONS) or _last_word(parent) in _LOCATION_WORDS


# A section's last word that makes its bare `key` its secret (`secret: {key: …}`, `api_keys: [{key: …}]`), not a
# credential's field whose `key` names where it is kept.
_KEYED_SECTIONS = frozenset(("secret", "secrets", "key", "keys", "token", "tokens"))


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
        # (a method's hooks, run after a password's flow: Ory Kratos' `after: {password: {hooks: [{hook: session}]}}`,
        # a webhook's config below, judged by its own names)
        # (nor a unit's `configuration` in a list of them: bank-vaults' Vault secrets engines, `secrets: [{type:
        # database, configuration: {config: [{allowed_roles: [pipeline]}]}}]`, judged by their own names)
        if _secret_name(p)[1] and not (k and named[k - 1].lower() in _UNIT_COLLECTIONS) and (
                named[k + 1:k + 2] != ["hooks"]) and "configuration" not in named[k + 1:-1]:
            return not any(q.lower() in ("labels", "annotations") for q in named[k + 1:-1])
    return False


# When a setting applies, in a section of secrets under a name that is none (hanko's `password:
# {acquire_on_registration: always}`): a policy's word, no secret.
# (and libpq's `sslmode`, Secretless Broker's `credentials: {sslmode: disable}`)
_POLICY_WORDS = frozenset("always never conditional optional required disable allow prefer require verify-ca verify-full"
                          .split())
_LIST_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
# Identifiers with a separator, one or more (`ssl-ca`, `LD-ACCESS-TOKEN`, `BW-GHAPP-ID,BW-GHAPP-KEY`): secrets' names.
_SECRET_NAME_ONE = r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+"
_SECRET_NAMES = re.compile(rf"{_SECRET_NAME_ONE}(?:[ \t]*,[ \t]*{_SECRET_NAME_ONE})*")
# HashiCorp's vault-action's `secrets:` input, a line per secret: its path in Vault, its key, maybe `| ENV_NAME`, `;`
# (`secret/data/ci npmToken | NPM_TOKEN ;`): where each is read from, none of them a value.
_VAULT_ACTION_LINE = re.compile(
    r"[ \t]*/?[\w.-]+(?:/[\w.-]+)*[ \t]+[\w.-]+(?:[ \t]*\|[ \t]*[A-Za-z_][\w-]*)?[ \t]*;?[ \t]*")


def _vault_action_secrets(value: str) -> bool:
    """Every line of the value is one of vault-action's (_VAULT_ACTION_LINE), and no piece of it looks generated."""
    lines = [line for line in re.split(r"\n|\\n", value) if line.strip()]
    return bool(lines) and all(_VAULT_ACTION_LINE.fullmatch(line) for line in lines) and not any(
        looks_random(piece, 8) for piece in re.split(r"[\s/.|;-]+", value) if piece)


# The key in a chart's Secret that holds a password (Jenkins' `admin: {passwordKey: jenkins-admin-password}`), camel
# case; its value a name of words ending in a credential's (`jenkins-admin-password`): kept, where `hunter2` is not.
_PASSWORD_KEY_NAME = re.compile(r"(?:^|[a-z0-9_])[Pp]asswordKey$")
_KEY_NAME_VALUE = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*[-_.](?:password|passwd|pass|user|username|token|secret)")


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
        if name.lower() == "secrets" and (_SECRET_NAMES.fullmatch(value.strip()) or _vault_action_secrets(value)):
            return redact_text(value)  # the names of secrets (Compose's `secrets: [ssl-ca]`, an Action's input)
        if _PASSWORD_KEY_NAME.search(name) and _KEY_NAME_VALUE.fullmatch(value.strip()):
            return redact_text(value)  # (the key in a chart's Secret that holds the password: a name)
        if is_secret_key(path):
            if not is_benign_value(value, name) and not (
                    value.strip().lower() in _POLICY_WORDS and not _secret_name(name)[0]) and not (
                    _names_by_path(parts, value)):
                return REDACTED
        elif (_name_tier(name) == 1 or _in_secret_section(named := [p for p in parts if not p.isdigit()]) or (
                _record_key(parts, named))) and looks_random(value) and not is_benign_value(value, name):
            return REDACTED  # (a location's or a name's key in a section of secrets, a record's key: a generated value)
        elif _ordinary_but_random(path, value):
            return REDACTED
    return redact_text(value)


def _names_by_path(parts: list[str], value: str) -> bool:
    """A value its path says is a name, kept unless generated: a workflow step's `with: {key: …}` of words (rust-cache's
    `key: test-x86_64-unknown-linux-gnu`, a cache's key; an SSH action's private key there is read by its block's
    form), and a reference's `secret` (Google Cloud's `secretKeyRef: {secret: prefect-api-key, version: latest}`: the
    Secret Manager secret's name)."""
    named = [p for p in parts if not p.isdigit()]
    if named[-3:] == ["steps", "with", "key"]:
        # (expressions among the words, each read as a separator: cosmos' `integration-dbt-1-8-${{ runner.os }}-…`)
        words = _WORKFLOW_EXPR.sub("-", value)
        return _PLAIN_NAME.fullmatch(words) is not None and _no_generated_piece(words)
    return len(named) >= 2 and named[-1].lower() == "secret" and _last_word(named[-2]) == "ref" and (
        _PLAIN_NAME.fullmatch(value) is not None and not looks_random(value))


_PLAIN_NAME = re.compile(r"[\w.-]{1,200}")
_WORKFLOW_EXPR = re.compile(r"\$\{\{[^{}\n]{0,200}\}\}")


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
    if ": |" in text or ": >" in text:
        if _YAML_BLOCK_PASSWORD.search(text):
            pem = {**(pem or {}), **_yaml_block_password_changes(text, pem or {})}
        if _YAML_BLOCK_SECRET.search(text):
            pem = {**(pem or {}), **_yaml_block_secret_changes(text, pem or {})}
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
