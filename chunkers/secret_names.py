"""What names a secret: the words that free text and parsed settings look for, and how strongly a name says it.

`SECRET_KEY` and `SECRET_SECTION` are the spec's patterns for parsed keys and their ancestors; `_SECRET_CORE` and
`_SECRET_NAME` find a secret's name in a line of code or prose; `_name_tier` grades a name (2 a secret's name, 1
`key` or `token` as one word of a longer name, 0 none) and `_NOT_SECRET_NAME` lists the secret-sounding names that
hold no secret (`max_tokens`, `password_policy`). The line forms (secret_lines.py), the value judgements
(secret_values.py) and the settings path (redact.py) read names through this module.
"""

from __future__ import annotations

import functools
import re

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

# The word for a password in French, German, Portuguese, Spanish or Dutch (a setter's name, _SETTER_CALL).
_FOREIGN_PASSWORD = r"(?:mot(?:de|_de_)passe|passwort|senha|contrase(?:ñ|n)a|wachtwoord)"

# Secret-sounding names that hold no secret (`max_tokens`, `password_policy`).


def _ending_in(words: str, plural: str = "s?") -> str:
    """A pattern for a name that ends in one of `words` (given in camel case): after `_`, `.` or `-` in any case
    (`TOKEN_ISSUER`, `token.issuer`), or run on after a letter or digit in camel or upper case (`TokenIssuer`,
    `TOKENISSUER`), maybe plural, before a closing quote or bracket."""
    camel = words.split()
    alternatives = "|".join(dict.fromkeys(camel + [w.upper() for w in camel]))
    lower = "|".join(dict.fromkeys(w.lower() for w in camel))
    return rf"(?:[_.-](?:{lower})|(?-i:(?<=[a-z0-9])(?:{alternatives}))){plural}[\"'\]]?$"


_NOT_SECRET_NAME = re.compile(
    r"(?i)(tokeniz|tokens?[_.-]?(type|url|uri|endpoint|file|path|count|limit|len|length|name|field|expir|ttl|"
    # (not Vault's dev server's root token id, `VAULT_DEV_ROOT_TOKEN_ID`: the token itself; where tokens are read
    # from, Cloudflare's `token_sources.0`)
    r"lifetime|lifespan|usage|kind|str|(?<!root[_-]token[_-])(?<!root[_-]token)(?<!roottoken)ids?|index|offset|pos|"
    r"prob|logit|mode|stream|scopes?|sources?)|max[_-]?tokens|"
    # a plural names many (`total_tokens`, `MAX_TOTAL_TOKENS`): a count or a list, not one secret
    r"tokens(?![a-z])|(?<!access[_.-])(?<!access)key[_.-]?(name|id|type|path|file|vault|size|length|alias)|"
    # the name of the header that carries a key (`ApiKeyHeader`), not `ApiKeyHeaderValue`
    r"(key|tokens?)[_.-]?header([_.-]?name)?(?!\w)|publishable|public[_.-]?(key|token)|authenticity[_.-]?token|"
    # (a public key's short name: envkey's `MINISIGN_PUBKEY=RWQ5…`, `sshPubKey`)
    # (a name ending there: Flutterwave's `flutterwavePubKey_api_token = "FLWPUBK_TEST-…"` is a token's, in gitleaks'
    # tests)
    r"(?:(?<![A-Za-z])pub|(?-i:(?<=[a-z0-9])Pub))[_.-]?keys?(?![a-z])"
    r"(?![\w.-]*?(key|token|secret|passw|pwd|auth|cred))|"
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
    # (JBoss' login module option `password-stacking`, whose value says how: `useFirstPass`)
    r"passw(or)?d[_.-]?(policy|length|hash|hint|field|label|reset|url|min|max|rules?|placeholder|input|mgr|manager|"
    r"stacking|"
    # (the characters a generator draws from: mutillidae's `lPasswordCharset = "ABC…xyz0123456789"`)
    r"charset|chars|characters|alphabet|"
    # the name of where a password is kept (`passwordName = "UserPasswordValue"`), as `secretName` is
    r"name(?![a-z]))|"
    # what names or points at a secret (Kubernetes' `secretName`, `secretKeyRef`, a vault path), or says which kind it
    # is (a scanner's `"secret_type": "adafruit_io_key"`)
    # (and the class of a CSI driver's provider of them: `secretProviderClass: "app-aws-secretsmanager"`)
    # (a namespace's abbreviation too: sealed-secrets' `secretNS = "myns"`)
    r"secrets?[_.-]?(name|namespace|ns|ref|key[_.-]?ref|store|provider([_.-]?class)?|arn|path|version|manager|type|"
    r"kind)s?"
    r"(?![a-z])|"
    # where a secret comes from (JupyterHub's `secret_from = 'env'`), no secret's word after it (`secret_source_token`)
    r"secrets?[_.-]?(from|source|origin)([_.-]?env)?(?![a-z])(?![\w.-]*?(key|token|secret|passw|pwd))|"
    # "secret" inside another word (`secretary`, `secretariat`), the name's only secret word (`secretarySecret`,
    # `secretary_password` are secrets' names)
    r"^(?!.*(secret(?!ar(y|ies|iat))|passw|pwd|token|key|cred|auth))[^\n]*?secretar(y|ies|iat)|"
    # a login without a password (Ruby's Passwordless gem: `Passwordless.default_from_address`), the name's only
    # secret word
    r"^(?!.*(secret|pwd|token|key|cred|(?<!web)auth(?!n)|passw(?!(or)?dless)))[^\n]*?passw(or)?dless|"
    # (and CyberArk's Secretless Broker, `SECRETLESS_HOST: secretless-with-plugin`: a product's name)
    r"^(?!.*(secret(?!less)|pwd|token|key|cred|(?<!web)auth(?!n)|passw))[^\n]*?secretless|"
    # "key" inside another word (`okapi-keyboard`: `api-key` read across two words), the name's only secret word
    r"^(?!.*(secret|passw|pwd|token|cred|auth|key(?!(board|stroke|frame|pad)s?)))[^\n]*?key(board|stroke|frame|pad)|"
    r"key[_.-]?ref(?![a-z])|(key|token)[_.-]?(hash|digest|checksum|sha\d*|md5|fingerprint)(?![a-z])|"
    # a name whose last word says its value is an address or holds a secret's place (`TOKEN_EXCHANGE_URL`,
    # `tokenEndpoint`, `API_KEY_PLACEHOLDER`): credentials inside an address are found by their form (`user:pw@`, a
    # query's `token=`, a webhook's URL), never by this name
    r"(?:[_.-](?:url|uri|endpoint|placeholder)|(?-i:(?<=[a-z0-9])(?:Url|Uri|URL|URI|Endpoint|Placeholder)))s?"
    r"[\"'\]]?$|"
    # ... or a network address, a JWT's audience or issuer, a command to run (AWS' `credential_process = aws-vault
    # export …`), how often, or which store (aws-vault's `ec2CredentialsServerAddr = "127.0.0.1:9099"`, kamus'
    # `TokenIssuer = "MyProject"`, chamber's `SecretsManagerBackend = "SECRETSMANAGER"`, Vault Agent's
    # `StaticSecretRenderInterval: "10s"`), or a user's name (envconsul's `secret_passwords_username=foo`)
    # (and a moment or a count: spring-cloud-vault's `wrapping_token_creation_time: 2016-09-18 20:29:48…`, Vault's
    # `secret_id_num_uses=1000`)
    # (a Vault accessor, its public handle: hvac's `"secret_id_accessor": "84896a0c-…"`; a length; an action's name,
    # credentials-plugin's `UpdateCredentialAction=Update`; not a label's, a prompt's or a hint's, whose generated
    # value stays judged: round 37)
    # (a database's engine, AWS' rotation functions' `secret_dict['engine'] != 'mongo'`; a token's period, Vault's
    # `token_period = "86400"`; a page's element, okta's `password_selector`; a JWT's subject, a user: auth0's
    # `global_token_revocation_jwt_sub`; a key's kind, AWS KMS' `CustomerMasterKeySpec: SYMMETRIC_DEFAULT`)
    + _ending_in("Addr Address Audience Issuer Process Interval Backend User Username UserName Time Timestamp Date "
                "Uses Accessor Length Action Engine Period Selector Subject Sub Spec", plural="(?:es|s)?") + "|"
    # a secrets engine's path or mount in Vault (vault-examples' `secret.kv.path=database`)
    r"secrets?[_.-]kv2?[_.-](path|mount|version)s?(?![a-z])|"
    # a PGP public key to encrypt with (Vault's `root_token_pgp_key`, `pgp_keys`): a private one is found by its
    # block's form; a passphrase's name after it is one
    r"pgp[_.-]?keys?(?![a-z])(?![\w.-]*?(passw|pass|secret|token|pwd))|"
    # an HTTP header's name (Parse's `PFCommandHeaderNameSessionToken = @"X-Parse-Session-Token"`)
    r"header[_.-]?name|"
    # Vault Agent's injector's annotation: its value is the secret's path in Vault, the name the file it is written to
    # (vault-k8s' `vault.hashicorp.com/agent-inject-secret-foobar: "database/creds/db-app"`)
    r"agent[_.-]inject[_.-]secret[_.-]|"
    # ... or a hash, a salt or a digest of one (`MasterPasswordAuthenticationHash = "authHash"`, `passwordSalt`): a
    # password's hash is found by its form (crypt, bcrypt: the rule table), a hex or base64 one by _hash_name
    + _ending_in("Hash Salt Digest", plural="(?:e?s)?") + "|"
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
    # key rows are sorted or partitioned by, a stream's column that marks how far it was copied (Singer's and Meltano's
    # `TAP_POSTGRES__METADATA_SOME_STREAM_ID_REPLICATION_KEY=created_at`); a secret's word after it
    # (`foreign_key_secret`) is still one
    r"(?:foreign|sort|partition|replication)[_.-]?keys?(?![a-z])(?![\w.-]*?(token|secret|passw|pwd))|"
    # what makes passwords, not one (passbolt's `PasswordGenerator`, `PASSPHRASE_GENERATOR_WORDS_CASE_LOWER`)
    r"(?:passw(?:or)?d|passphrase)[_.-]?generators?(?![a-z])|"
    # a name whose last word says it points at the secret (`SECRET_VAULT_REF`, `db_password_reference`)
    r"[_.-]ref(erence)?s?(?![a-z0-9_])[\"'\]]?$|"
    # .NET's user-secrets store id (`<UserSecretsId>` in a project file: a GUID naming a folder), an OpenID provider's
    # list of what it supports (`id_token_signing_alg_values_supported`), a switch that hides or shows passwords
    # (`hidePasswords: 0.04`), how long a credential lives (Cassandra's `credentials_validity_in_ms: 2000`)
    r"user[_.-]?secrets[_.-]?id(?![a-z])|(?:alg|algs|values|methods|types)[_.-]?supported(?![a-z])|"
    r"(?<![a-z])(?:hide|show|mask|reveal|toggle)[_.-]?(?:passw|secret|token)|"
    # (and how far a clock may drift past it: pocketbase's `PB_ID_TOKEN_LEEWAY=60`, seconds)
    r"(?:validity|timeout|ttl|leeway|skew)(?:[_.-]?in)?"
    r"(?:[_.-]?(?:ms|millis|seconds?|secs?|minutes?|mins?|hours?|days?))?"
    r"[\"'\]]?$|"
    # a name that negates its secret word (`'not-secret'`, `non_secret`, `no-password`, `not_a_token`)
    r"(?<![a-z])(not?|non)[_.-](an?[_.-])?(secret|passw|pwd|token|key|cred|api[_.-]?key)|(?<![a-z])n(ot|on)secret|"
    # the name of a Secret a chart is given to read (Helm's `existingSecret: dojopro-license`), not its value
    r"(?<![a-z])existing[_.-]?secrets?(?![a-z])|"
    # ... and the key in it that holds a value (Helm's `existingSecretPasswordKey: mongodb-root-password`,
    # `existingUserSecretKey: username`)
    r"(?<![a-z])existing[\w.-]{0,60}?keys?[\"'\]]?$|"
    # a Kubernetes Secret named for the certificate it holds (`tlsSecret: keycloak-tls`, CloudNativePG's
    # `serverCASecret: cluster-example-ca`): the Secret's name; camel case only (`tls_secret` may be a value)
    r"(?-i:(?:^|[a-z0-9])(?:tls|TLS|Tls|CA|ca|Ca|[Cc]ert|[Cc]ertificate|[Ss]sl|SSL)Secret(?:Name)?[\"'\]]?$)|"
    # a credentials object's member or the last part of its path (`__` joins a setting's path in an environment
    # variable's name: dlt's, Meltano's, ASP.NET Core's) that says where or which, not what proves it (dlt's
    # `DESTINATION__QDRANT__CREDENTIALS__PATH: zendesk.qdb`, `creds.database = "testdb"`, `CREDENTIALS__WAREHOUSE`;
    # a secret's `secrets.db` stays one)
    r"cred(?:ential)?s?(?:__|\.)(?:[a-z0-9]+_){0,4}(?:path|file|dir|host|hostname|port|server|endpoint|url|uri|email|"
    r"database|db|schema|catalog|warehouse|role|region|drivername|driver|application)[\"'\]]{0,2}$|"
    # a list's place to go on from (S3's `continuation-token=…`, `nextPageToken`): a cursor, no credential
    # (a word of its own: `statuspage_token` is Statuspage's)
    r"(?:continuation|pagination|(?<![a-z])page|(?-i:(?<=[a-z])Page))[_.-]?tokens?(?![a-z])|"
    # a name whose last word says its value is a policy or what a store can do (external-secrets' Go constants
    # `CreatePolicyOwner ExternalSecretCreationPolicy = "Owner"`, `SecretStoreCapabilities = "ReadOnly"`: the type's
    # name is read), an enumeration's word; camel case only (a generated value after Python's quoted
    # `"set_secret_data_policy"`, a method's name, stays judged)
    r"(?-i:(?<=[a-z0-9])(?:Polic(?:y|ies)|Capabilities))[\"'\]]?$)"
)
# Values on a config-shaped line that are type annotations or code, not secrets.
_NOT_A_VALUE = re.compile(
    r"(?i)^(?:str|string|int|bool|boolean|number|bytes|any|object|none|null|nil|true|false|undefined|"
    # (a GraphQL schema's type, non-null: keystone's `sessionToken: String!`)
    r"optional|secretstr|secretbytes|\[REDACTED\])!?$|[();,\[\]{}<>]|\s=|=\s|^=|^\$\{|^\{\{|^%\w+%$|"
    # a bare CamelCase word after `name:` is a type annotation far more often than a secret
    r"(?-i:^_?[A-Z][a-z]+(?:[A-Z][a-z]+)*$)|"
    # a ternary of references, no literal (Terraform's `local.is_primary ? var.db_password : null`)
    # (or numbers: sadcloud's `max_password_age = var.password_policy_expiration_threshold ? 0 : 60`)
    r"(?-i:^!?[A-Za-z_][\w.]*[ \t]+\?[ \t]+(?:[A-Za-z_][\w.]*|-?[0-9]+)[ \t]+:[ \t]+(?:[A-Za-z_][\w.]*|-?[0-9]+)$)|"
    # ... and so are a module's type (`builtins.str`, `torch.Tensor`, `grpc.ServerCredentials`) and a union
    # (`str | None`)
    r"^(?:builtins|typing|t|np|numpy|pd)\.\w+$|(?-i:^(?:[a-z_][a-z0-9_]*\.)+_?[A-Z][A-Za-z0-9]*$)|^[\w.]+(?:[ \t]*\|[ \t]*[\w.]+)+$"
)

_SECRET_WORDS = ("secret", "passw", "pword", "passphrase", "pwd", "token", "connection", "credential", "creds", "key")


def _has_secret_word(text: str) -> bool:
    # str.lower + substring search: ~20x faster than a case-insensitive alternation.
    low = text.lower()
    return any(word in low for word in _SECRET_WORDS)


_IDENT_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

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
    # (Vault's dev server's `VAULT_DEV_ROOT_TOKEN_ID`: the root token itself, whatever it looks like)
    r"(?:key|token)|roottokenid")
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
    (_PASS_STEP), else 1; 2 also for an account's word run into `pass` or `pw`, or `pw` after it; None for any other
    name. Free text's _pass_named and parsed settings' _name_tier read it."""
    last = words[-1] if words else ""
    if last not in ("pass", "pw") and last.endswith(("pass", "pw")) and (
            last[:-4] if last.endswith("pass") else last[:-2]) in _PASS_HOLDERS:
        return 2  # run together after an account's word (Vault's LDAP `bindpass`, slapd's `rootpw`, `keypass`)
    if len(words) >= 2 and last == "pw":
        return 2 if words[-2] in _PASS_HOLDERS else None  # (`db_pw`, `adminPw`; a pen's width stays a width)
    if len(words) < 2 or words[-1] != "pass":
        return None
    return 0 if words[-2] in _PASS_STEP else 2 if words[-2] in _PASS_HOLDERS else 1
