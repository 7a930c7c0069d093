"""Whether a value is a secret by its look, whatever name holds it.

`looks_random` says a value looks generated (length, entropy, character classes); `is_benign_value` says it holds
no secret under any name: a reference (`${DB_PASSWORD}`, `process.env.KEY`), a placeholder, a phrase, an
identifier, a path, a URL without credentials, a published form (a JOSE algorithm, a media type, a duration) and
the look-alikes each round of benchmarks/secrets_recall.md found in real code. Every form that finds a candidate
(secret_tokens.py, secret_lines.py, secret_blocks.py, the settings path in redact.py) asks here before it redacts.
"""

from __future__ import annotations

import base64
import math
import re
import zlib

from .secret_names import _FOREIGN_PASSWORD, _IDENT_WORDS, _has_secret_word, _last_word, _name_tier
from .secret_rules import _RULES

# A plain word (letters, then digits at the end: `admin123`, `mydb`): a literal given by position that is one, or a
# host, a path, a pair, is no password (_password_like)
_PLAIN_WORD = re.compile(r"[A-Za-z]+(?:[_-][A-Za-z]+)*[0-9]*")

# A connection string's parts that hold a credential or its user (`Password=`, `User Id=`, `AccountKey=`, `sig=`),
# their name and their value (secret_lines' _conn_string redacts the value; _template_conn reads a syntax's words).
_CONN_CRED = re.compile(
    r"(?i)(^|;)([ \t]*(?:password|pwd|secret|user[ \t]*id|uid|user(?:name)?|"
    r"(?:shared[ \t]*)?access[ \t]*key|account[ \t]*key|shared[ \t]*access[ \t]*signature|sig)[ \t]*=[ \t]*)"
    r"([^;]*)"
)

# A settings value that names where the secret comes from, not the secret.
_PLACEHOLDER = re.compile(r"(?i)^(?:\$[({]|\{\{|#\{|%\w+%$|true$|false$)")

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
    # (... or in escaped quotes: git's sample hook's `$last_update_token = "\"$last_update_token\"";`)
    r"\\\"\$\{?[A-Za-z_]\w*\}?\\\"|"
    # a shell function's or script's positional or special parameter (lldap's `admin_password="$3"`, vault-examples'
    # `SECRET_ID_EXIT=$?`: the last command's status), a command's
    # output cut at a quote inside it (`PASSWORD="$(< "$password_file")"` read to the inner quote: `$(< `)
    r"\$\{?[0-9@*#?!]\}?|\$\([^)\n]*|"
    # (words before a command's output, made when the script runs: `SECRET_ID="test-secret-$(openssl rand -hex 4)"`)
    r"[a-z]+(?:-[a-z]+)*-\$\([^()\n]*\)|"
    r"(?:process\.env|import\.meta\.env|os\.environ|env|environ|secrets|vars|config|settings|configuration)[.\[:].*|"
    # a config's reference to the environment or a file (LiteLLM's `os.environ/NAME`, opencode's `{env:NAME}` and
    # `{file:path}`), a vals reference to a secret store (`ref+vault://path#/key`, `ref+awssecrets://…`)
    r"os\.environ/[A-Za-z_]\w*|\{(?:env|file):[^{}\s]+\}|ref\+[a-z0-9]+://.*|"
    # (Kong's vault reference, `{vault://env/pg_password}`; APISIX's, `$ENV://VAULT_TOKEN`, `$secret://vault/1/key`)
    r"\{vault://[^{}\s]+\}|\$(?:ENV|env|secret)://[\w./-]+|"
    # (also run together: supabase's `SECRET_KEY=YOURSECRETKEYGOESHERE`)
    r"x{3,}|•+|(?:your|enter|insert)[\s_-].*|your[a-z0-9]{2,40}here|.*[_-](?:here|placeholder)|"
    # (an instruction to change the value, words after it too: lldap's `REPLACE_WITH_RANDOM`, `CHANGE_ME_TO_SOMETHING`)
    # (after `please`, Ory's `PLEASE-CHANGE-ME-I-AM-VERY-INSECURE`; or a denial, Harbor's `not-a-secure-key`)
    r"(?:please[_-]?)?(?:change|replace)[_-]?(?:me|with)[a-z]*(?:[_-][a-z]+)*|not[_-]a[_-][a-z]+(?:[_-][a-z]+)*|"
    # (Java's keystores' `changeit`, keywhiz's shouted `password: CHANGE`)
    r"change[_-]?it|(?-i:CHANGE)|"
    # (`change this`, maybe shouted, words after it: supabase's `GOTRUE_JWT_SECRET="CHANGE-THIS! VERY IMPORTANT!"`)
    r"change[_-]?this(?:[_-][a-z]+)*!*(?:\s+[a-z]+)*!*|"
    # (... or among words between signs: keystone's documented `secret: '-- EXAMPLE COOKIE SECRET; CHANGE ME --'`)
    r"[^\w\s]*\s*(?:[a-z]+[\s;,.:!_-]+){0,8}change[\s_-]?(?:me|this)(?:[\s;,.:!_-]+[a-z]+){0,8}[\s;,.:!_-]*|"
    # `your` before capitalised words (hackazon's documented `['yourUserName'] = 'yourPassWord'`)
    r"(?-i:your(?:[A-Z][a-z]*)+)|"
    # (... or shouted, run into a secret's word: snipe-it's `MAIL_PASSWORD=YOURPASSWORD`)
    r"(?-i:YOUR(?:[A-Z]+_?)?(?:PASSWORD|PASSWD|SECRET|TOKEN|KEY|APIKEY|API_KEY)S?)|"
    # a YAML anchor or alias of words (`credentials: &default-credentials`, `password: *shared`): a mapping's name
    r"(?-i:[&*][a-z]+(?:[-_][a-z]+)*)|"
    # a build's token to replace: an upper-case name between a pair of its delimiters (Maven's and Ant's `@DB_PASS@`,
    # `@@PASSWORD_PLACEHOLDER@@`, a template's `$SAFE_NAME$`, replace-token tasks' `#TOKEN#`, `__TOKEN__`,
    # `#{Db.Password}#`, `[%TOKEN%]`)
    r"(?-i:@@?[A-Z][A-Z0-9_]{2,}@@?|\$[A-Z][A-Z0-9_]{2,}\$|#[A-Z][A-Z0-9_]{2,}#|__[A-Z][A-Z0-9_]{2,}__|"
    # (a name in camel case between doubled `#`: 1Password's operator's tests' `"password": "##newPassword##"`)
    r"##[A-Za-z][A-Za-z0-9_]{2,}##|"
    # (lower case too, the underscores three or more: Security Shepherd's `keystorePass="___password___"`)
    r"_{2,}[a-z][a-z0-9]*(?:_[a-z0-9]+)*_{2,}|_{3,}[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_{3,}|"
    # (a workflow expression after words: actions/cache's `key: maven-output-${{ hashFiles('target/**') }}`)
    # (a version's digits after a word: bank-vaults' `key: licensei-v1-${{ github.ref_name }}-…`)
    # (or CircleCI's template, no `$`: kamus' `key: docker_api_cache_key-{{ .Revision }}`)
    r"[a-z]+[0-9]*(?:[-_][a-z]+[0-9]*)*[-_]\$?\{\{.*\}\}.*|"
    # (... or expressions first, words between and after them: `${{ runner.os }}-python-${{ … }}-docs`)
    r"\$\{\{[^{}\n]*\}\}(?:[-_.](?:\$\{\{[^{}\n]*\}\}|[a-z]+[0-9]*))+|"
    r"\[%[A-Z][A-Z0-9_]{2,}%\])|#\{[A-Za-z_][\w.-]*\}#|"
    # a single-brace template's hole of a name's letters (`{password}`, `{ DRONE_TOKEN }`; `{Zq5…}` is a
    # braced value), a literal of no value (`"null"`),
    # a CloudFormation reference (`!Ref DBPassword`, `!GetAtt Secret.Value`, `!Sub "${Pass}"`)
    # (also a JSONPath template's field, kubectl's `'{.credential.access_token}'`)
    # (a sentence's stop after the literal: pygoat's documented `password=TRUE.`)
    r"(?:\{\s*\.?[A-Za-z_][A-Za-z_.-]*\s*\})+|(?:null|none|nil|undefined|true|false)\.?|"
    # a Terraform reference quoted (`"var.mailgun_api_key"`, `"local.db_password"`): lower-case words
    # (or `-`, Terraform's names may hold it: cloudgoat's `password = var.rds-password`)
    r"(?-i:(?:var|local)\.[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*)|"
    # a label to concatenate a value to: words, then a space and `=` or `:` (`"Password = "`; the value is read
    # stripped: `"application:"` is none, a value that a key follows in `"application:" + appKey`)
    r"[A-Za-z][A-Za-z ]*?\s[=:]|"
    # ... or a flag's name and `=` (`'--password='.$connection['password']`): the value is what follows
    r"--?[A-Za-z][\w-]*=|"
    # a bracketed word: a tokenizer's special token (`pad_token: str = "[PAD]"`, `"[CLS]"`, `"[X_SEP]"`), also
    # between other brackets or bars (`"|SPEAKER|"`, `"]<]start of image[>["`, `"[MASK2]"`)
    r"\[[A-Za-z_]+\]|[\[\]<>|{}]{1,4}[A-Za-z][A-Za-z_ -]*[0-9]{0,2}[\[\]<>|{}]{1,4}|"
    r"!(?:Ref|ImportValue|GetAtt|FindInMap|Select|If|Join)\s.*|!Sub\s.*\$\{.*|"
    # (an Azure Resource Manager template's expression, cut at its inner quote where a line is read: `"adminPassword":
    # "[parameters('adminPassword')]"`, `"[string(steps('configuration').x)]"`; a key from `listKeys(…)` is got when
    # deploying)
    r"(?-i:\[[a-z][A-Za-z]{1,30}\().*|"
    # (Summon's reference to a secret store's variable: conjur's `AWS_SECRET_ACCESS_KEY: !var ci/aws/…/secret`)
    # (its path may hold a variable, and `!file:var` is `!var:file`: summon's `API_KEY: !var $env/sentry/api_key`)
    r"!(?:var(?::file)?|file:var)[ \t]+[\w./:#@+$-]+|"
    # (a path ending in a variable: conjur's `-e GCLOUD_SERVICE_KEY=/tmp$GCLOUD_SERVICE_KEY`)
    r"(?:/[\w.-]*)+\$\{?[A-Za-z_]\w*\}?|"
    # (a mask's word or the word for a value itself, maybe numbered: Caddy's `f.AddOperation("password", "HIDDEN")`,
    # `KEY=value`, mlrun's `{"secret1": "value1", "secret2": "value2"}`)
    r"placeholder|todo|tbd|dummy|redacted|\[REDACTED\]|not[_-]?set|unset|hidden|masked|value[0-9]{0,2}|"
    # (a user and a hole for the token: polyaxon's `--from-literal=POLYAXON_GIT_CREDENTIALS="oauth2:<TOKEN_HASH>"`)
    r"[\w.-]{1,40}:<[^<>\s]{1,80}>|"
    # (a YAML block scalar's indicator, its chomping and indentation: KServe's `credentials: |-`; the lines below are
    # the value, each judged under the name: secret_blocks' _YAML_BLOCK_SECRET and _YAML_BLOCK_PASSWORD)
    r"[|>](?:[1-9]?[-+]?|[-+][1-9])|"
    # (... in parentheses: Meltano's manifest's `"TAP_SNOWFLAKE_PASSWORD": "(redacted)"`, Terraform's `(sensitive
    # value)`)
    r"\((?:redacted|hidden|masked|omitted|removed|censored|sensitive(?: value)?)\)|"
    # (a run of one sign standing for the value: aws-vault's `AWS_SECRET_ACCESS_KEY=%%%`)
    r"%{3,}|#{3,}|\?{3,}|"
    # a placeholder word between runs of signs (`"--- redacted ---"`, `"== hidden =="`), a bracketed phrase after
    # signs (`" * [would prune] "`, a status line's template)
    r"[^\w\s]{2,}\s*(?:redacted|hidden|masked|omitted|removed|censored)\s*[^\w\s]{2,}|"
    r"[^\w\s\[]+\s*\[[a-z]+(?:\s[a-z]+)+\]|"
    # a call's other arguments read as a value between two strings' ends (`"…token:", default=api_token or "`)
    r",\s*[A-Za-z_]\w*\s*=[^=].*|"
    # (... or a call: OpenResty's `ngx.say("with credentials:    ", hit("/graphql-shared-a"))`)
    r",\s*[A-Za-z_][\w.:]*\(.*|"
    # a documentation's sample of the field (`ExamplePreSharedKey1`, `sample-api-token`)
    r"(?:example|sample)[_-]?[a-z_-]*(?:key|token|password|passwd|pass|secret)\d*|"
    # truncated or masked (`hf_...`, `sk-…`, `hf_***`), a sample's name (`my_secret_key`, `secret_value`)
    # (several secret words after a sample's word: APISIX's `"access_key_secret": "fake-key-secret"`)
    r"(?:example|sample|dummy|fake)[_-](?:(?:secret|api|access|private|key|token)[_-]){1,2}(?:secret|token|key)s?|"
    r".*(?:\.\.\.|…|\*\*\*).*|(?:(?:my|some|the|example|sample|dummy|fake)[_-]){0,3}"
    # (or `_hash` after it: supabase's `Token: "some-token-hash"`)
    r"(?:(?:secret|api|access|private)[_-])?(?:secret|token|password|key)s?(?:[_-](?:value|hash))?|"
    # (a key's first word before `_value`: hanko's `{"private_key": "private_value"}`)
    r"(?:secret|api|access|private)[_-]value|"
    # (words ending in the word value, joined by `_` or `-` or in camel case: external-secrets' tests' `secretVal =
    # "someValue"`, `"another-value"`, `secretCertificate := "certificate_value"`; run together, `testvalue` under a
    # password's name, one word: the twelfth round's policy)
    r"(?-i:[a-z]{2,12}(?:[A-Z][a-z]{1,11}){0,2}Value|[a-z]{2,12}(?:[_-][a-z]{2,12}){0,2}[_-]value|"
    r"[A-Z]{2,12}(?:_[A-Z]{2,12}){0,2}_VALUE)|"
    # (a sample's word run into a token's or a key's: parse-server's `access_token: 'sometoken'`, `"mytoken"`; a
    # password's or a secret's, `mypassword`, stays one: the twelfth round's policy)
    # (or a placeholder's word: vault-csi-provider's tests' `ServiceAccountToken: "footoken"`)
    r"(?:my|some|your|the|foo|bar|baz)(?:api)?(?:token|key)s?|"
    # a format template (`%s_upgrades`, `{0}`), a regex, a call (`get_token()`), a URN
    # (.NET's composite format's hole with an alignment or a format: `{0,-8}`, `{0:#,0.00}`)
    r".*(?:(?-i:%[sdr])|%\(\w+\)[sd]|\{\d*\}|\{\d+(?:,-?\d+)?:[^{}\s]*\}|\(\?:|\\[wdsb]|\[\^).*|[\w.]+\(.*\)|[ua]rn:.*|"
    # a query's bind parameter named for the secret (`:password`, `@pwd`, `:myPassword`: _BIND_PARAM),
    # the end of one string and a concatenation read as a value (`'"+pwd+"'` in `"password='"+pwd+"'"`),
    # code between two strings' ends (`" + arg + secretConst + "`: `+` first and last, spaced)
    # (and Jinja's `~`: community.hashi_vault's `'secret=' ~ vault_kv2_api_path ~ '/secret2'`)
    r"" + _BIND_PARAM + r"|[\"'`]\s*(?:\+|&|\|\||~|\.\s*[$\w]).*|.*(?:\+|&|\|\||~|[$\w]\s*\.)\s*[\"'`]|"
    # ... also PHP's `.` (`" . pwd . "`)
    r"\s*[+~]\s+[$\w].*\s[+~]\s*|\s*\.\s+[$\w][\w$>\[\]'\"-]*\s+\.\s*|"
    # ... and Lua's `..` (APISIX's `"…?accessToken=" .. res_json["accessToken"]`: ` .. res_json[` between the quotes)
    r"\s*\.\.\s*[$\w].*|"
    # ... and a concatenation's operand before the call's next argument (hashicorp-vault-plugin's `"password=" +
    # VAULT_PW, "policies=admin"`: ` + VAULT_PW, ` between the two strings)
    r"\s*\+\s*[$\w][\w.$]*\s*,\s*|"
    # a template's hole cut by the quotes inside it (summon's `password = "{{ secret "db_pass" }}"`)
    r"\{\{-?[ \t]*[A-Za-z_.][^{}\n]*|"
    # a regex's character class of ranges, then a quantifier or another class (Doctrine's `NAMED_TOKEN =
    # ':[a-zA-Z_][a-zA-Z0-9_]*'`)
    r".*\[\^?[\w\\.-]*(?:a-z|A-Z|0-9)[\w\\.-]*\][*+?{\[].*)$"
)
# One word of a phrase: letters (an apostrophe or a slash inside), maybe wrapped in punctuation, or a
# format hole; a class's name in camel case too (a docstring's `server_credentials: A ServerCredentials object.`),
# an identifier of lower-case words joined by `_` (`"with past_key_values"`, `For client_credentials with client_id`).
# (a word of another language's letters counts: `Passordet må ha minst 6 tegn.`, a UI message in Norwegian; one
# letter beyond ASCII at least, no digit)
_PHRASE_WORD = re.compile(
    r"""["'(\[`*]*(?:[A-Za-z][a-z]*(?:['/][A-Za-z][a-z]*)*|[a-z]+(?:_[a-z]+)+|[A-Z]+|"""
    r"""[A-Z][a-z]+(?:[A-Z][a-z]+)+|\{\w*\}|%[sd1-9]|&|-|—|"""
    # (a comparison's sign after a parenthesis: credentials-plugin's `Password is short (< 14 characters)`; alone, it
    # is a phrase password's, Juice Shop's `muda-muda > ora-ora`)
    r"""\([<>]=?|"""
    # (capitalised words or an acronym joined by `-`: snipe-it's `'two_factor_secret' => 'Two-Factor Code'`; a
    # capitalised word's lower-case suffix, `Bender-in`, stays none)
    r"""(?:[A-Z]{2,}|[A-Z][a-z]+)(?:-[A-Z][a-z]+)+|"""
    # (lower-case words joined by `-`, maybe after an acronym: hanko's Dutch `otpSecretKey: "Geheime OTP-sleutel"`; a
    # capitalised word's suffix, Azerbaijani's `Bender-in`, is none: round 73's password quoted in a hint stays one)
    r"""(?:[A-Z]{2,}|[a-z]{2,})(?:-[a-z]{2,})+|"""
    # (words joined by `/` among them: umami's Swedish `"Felaktigt användarnamn/lösenord."`, "wrong user name or
    # password")
    # (the words before the first of another language's letters ASCII, so that each `/` is read one way only; that
    # letter found by a look ahead, not by splitting the word in three: a 30,000-letter word before a `/` took 14 s)
    r"""(?:[A-Za-z]+/)*(?=[A-Za-z]*[^\x00-\x7f\W\d_])[^\W\d_]+(?:/[^\W\d_]+)*)"""
    r"""[.,:;!?)\]'"`*\u3001\u3002\uff01\uff0c\uff1a\uff1b\uff1f]*""")
# An identifier: words joined by `_`, `.`, `:`, `-` or camel case.
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_.:\-][A-Za-z0-9]+)*")

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
    name_words = [w.lower() for w in _IDENT_WORDS.findall(name)]
    if name and value.isalpha() and not _PASSWORD_WORD.search(name) and value.lower() in name_words:
        return True  # one word of its own name (`access_key='access'`, a test's stand-in), not a password's
    words = [w.lower() for w in _IDENT_WORDS.findall(value)]
    # the last part of a dotted name (a member's own name counts alone: meltano's `assert store.connection_string ==
    # "SOME_CONNECTION_STRING"`)
    own = [w.lower() for w in _IDENT_WORDS.findall(re.split(r"[.:]", name.strip("\"'`@$[] "))[-1])]
    if name and _ONE_CASE_WORDS.fullmatch(value) and not _PASS_ANY.search(name) and not _PASS_ANY.search(value) and (
            _spells_its_name(words, name_words) or _spells_its_name(words, own)):
        return True
    # its name's last words run together, under no password's name (flytekit's `"FLYTE_AZURE_CLIENT_SECRET":
    # "clientsecret"`, a test's stand-in as `"client_secret": "client_secret"` is)
    if name and value.isalpha() and value.islower() and _PASSWORD_ONLY.search(name) is None and _own_tail(value, own):
        return True
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
    # a kebab- or snake-case phrase of lower-case words ending in all the words of its own name, a name of two words
    # or more, with one to three more words before them (`client_secret: grafana-client-secret`, `some-client-secret`,
    # flytekit's `api_key="my-comet-ml-api-key"`):
    # a label, not a value (`password = ini-plain-password` is a value: one word of a name is too little to repeat)
    if len(own) >= 2 and _KEBAB_WORDS.fullmatch(value) and 0 < len(words) - len(own) <= 3 and words[-len(own):] == own:
        return True
    return set(words) <= set(name_words)


# A path whose first part may be a hole (`${{ runner.temp }}`, `${HOME}`, `$TMPDIR`, `{{ .Values.dir }}`, `~`): words
# between slashes, no blank, no quote.
_HOLE_PATH = re.compile(r"(?:\$\{\{[^{}\n]{1,80}\}\}|\$\{[^{}\n]{1,80}\}|\{\{[^{}\n]{1,80}\}\}|\$\w{1,40}|~|\.{1,2})?"
                        r"(?:/[\w.@+-]{1,100}){1,30}/?")
# An AWS resource's id: its kind's prefix, 8 or 17 hex digits (`i-0123456789abcdef0`, `cks-1234567890abcdef0`).
_AWS_RESOURCE_ID = re.compile(r"[a-z]{1,10}(?:-[a-z]{1,10})?-(?:[0-9a-f]{8}|[0-9a-f]{17})")
_KEBAB_WORDS = re.compile(r"[a-z]{2,}(?:[-_][a-z]{2,})+")
# words of letters in one case joined by `_` (`service_account`, `KINIT_USING_PENDING_CREDS_SUCCESSFUL`)
_ONE_CASE_WORDS = re.compile(r"[a-z]+(?:_[a-z]+)+|[A-Z]+(?:_[A-Z]+)+")


def _own_tail(value: str, own: list[str]) -> bool:
    """`value` is the last two words or more of `own` run together; the tail grown from the end, no longer than the
    value (joined afresh for each length, a name of 30,000 words would be quadratic)."""
    tail = own[-1] if own else ""
    for word in reversed(own[:-1]):
        tail = word + tail
        if len(tail) > len(value):
            return False
        if tail == value:
            return True
    return False


def _spells_its_name(words: list[str], own: list[str]) -> bool:
    """A value's words (two or more) that are its name's own, or every word of its name (two or more) and one more: a
    constant spelling what it names (golang/oauth2's `serviceAccountKey = "service_account"`, a credentials file's
    type; AWS' `KINIT_PENDING_CREDS_SUCCESSFUL = "KINIT_USING_PENDING_CREDS_SUCCESSFUL"`, a message's code). More
    words are a value's (Authelia's `encryption_key: a_not_so_secure_encryption_key`, a test's key in words)."""
    return len(words) >= 2 and set(words) <= set(own) or (
        len(own) >= 2 and set(own) <= set(words) and len(set(words) - set(own)) <= 1)


# (a pass's word anywhere, in a name or a value: leaky-repo's `IRC_PASS=irc_pass` is a password)
_PASS_ANY = re.compile(r"(?i)pass|pwd|secret")



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


# An SDK's paginator: the request's and the response's field that carry the page's token (AWS SDK for PHP's
# `'input_token' => 'Marker'`, `'token_key' => 'NextPartNumberMarker'`, botocore's `"output_token": "NextToken"`).
_PAGER_NAME = re.compile(r"(?i)[\"']?(?:(?:input|output)[_-]?token|token[_-]?(?:param|key))[\"']?")
_PAGE_FIELD = re.compile(r"(?:[A-Z][a-z]+){0,4}(?:Marker|Token)")


# How a server checks or stores passwords, by PostgreSQL's method names (its `password_encryption = scram-sha-256`,
# a plugin's `password_authentication = "scram-sha-256"`): a method's name under a name saying so. Another value
# under such a name stays judged (Bitwarden's `MasterPasswordAuthentication = "…"`, a hash: round 57).
_PG_AUTH_METHODS = frozenset(("scram-sha-256", "md5", "trust", "reject", "peer", "ident", "cert", "gss", "sspi"))
_PW_METHOD_NAME = re.compile(r"(?i)passw(?:or)?d[_.-]?(?:authentication|encryption)[\"']?$")


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
        return all(_SLUG_PART.fullmatch(p) for p in re.split(r"[-_/ ]+|\$\{\w+\}", value[scheme.end():]) if p)
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
# (an item's name of words may hold blanks, and a piece may be a template's hole: dotenvx's Bitwarden references,
# `bw://My GitHub Account/password`, `bw://${ITEM_ID}/password`)
_STORE_PIECE = r"(?:[A-Za-z0-9][A-Za-z0-9_-]*(?: [A-Za-z0-9][A-Za-z0-9_-]*)*|\$\{[A-Za-z_]\w*\})"
_STORE_PATH = re.compile(r"(?=[A-Za-z$])" + _STORE_PIECE + r"(?:/" + _STORE_PIECE + r")*/?")
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
# (words joined by `-` too, Hydra's `aadAccessTokenPrefix = "vc-nonce-at:"`)
# (or `_`: better-auth's `refreshTokenPrefix = "hello_rt_"`; and first, flytekit's `secrets_prefix="_FSEC_"`)
_AFFIX = re.compile(r"_?[A-Za-z0-9]{1,16}(?:[-_][A-Za-z0-9]{1,16}){0,3}[_.:/-]?")
_ABOUT_WORDS = frozenset("type types kind connector connectors lifespan limit limits cost name "
                         # (how it is delivered or hashed, when it expires: node-oidc-provider's
                         # `backchannelTokenDeliveryMode === 'ping'`, `client_secret_expires_at`, django-oauth-toolkit's
                         # `CLIENT_SECRET_HASHER: "default"`)
                         "mode modes hasher at expires expiry expiration "
                         # (where it is kept: hanko's `sessionTokenLocation: "cookie"`, `!== "sessionStorage"`)
                         "location locations "
                         # (where a request carries it: requests-oauthlib's `default_token_placement = "query"`)
                         "placement "
                         # (how it is stored or checked: logto's `passwordEncryptionMethod: 'plain'`)
                         "method methods algorithm algorithms scheme strategy "
                         # (its hash's version: Harbor's `PasswordVersion: "sha256"`)
                         "version versions "
                         # (why one is refused: supabase's `Pwned ErrorSchemaWeakPasswordReasons = "pwned"`, Go's typed
                         # constant read with its type's name)
                         "reason reasons "
                         # (the group a store keeps it in: flytekit's `secret_group = "foo"`, `WANDB_SECRET_GROUP =
                         # "wandb-api-group"`)
                         "group groups".split())
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
        _X509_B64.match(v) is not None) or _DOTENVX_CIPHERTEXT.fullmatch(v) is not None or (
        _ENTRY_POINT.fullmatch(v) is not None) or (
        _GCP_NAME.fullmatch(v) is not None) or _OWN_MEMBER.fullmatch(v) is not None or (
        v in _WELL_KNOWN_DEV_VALUES) or _ui_text(v, label=name.startswith("string[")) or v in _RULE_WORDS or (
        _PHP_CLASS.fullmatch(v) is not None) or _java_class(v) or _lookup_spec(v) or _escaped_phrase(v) or (
        _XSD_TYPE.fullmatch(v) is not None) or _indexed_name(v) or (
        _PUBLIC_FORM.fullmatch(v) is not None) or _host_url(v) or _no_password_url(v) or _one_part_conn(v) or (
        _HOST_PORT.fullmatch(v) is not None and _no_generated_piece(v)) or (
        _LETTER_RUNS.fullmatch(v) is not None) or _PUNCT_ONLY.fullmatch(v) is not None or (
        _GLOB_PATH.fullmatch(v) is not None) or _hole_message(v) or (
        _SECRET_NAME_LIST.fullmatch(v) is not None and _NAMED_KIND.search(v) is not None and all(
            _NAME_LIST_WORD.fullmatch(w) for w in re.split(r"[-,\s]+", v))) or (
        _INLINE_MARKUP.search(v) is not None and _marked_up_text(v)) or (
        ";" in v and "=" in v and (_template_conn(v) or _credential_free_conn(v))) or (
        _HOLES_ONLY.fullmatch(v) is not None) or _VERSION_RANGE.fullmatch(v) is not None or (
        _SCRIPT_RUN.fullmatch(v) is not None) or (
        _DOTTED_LOWER.fullmatch(v) is not None and (not _PASSWORD_WORD.search(name) or _PASSWORD_WORD.search(v))) or (
        # a switch's word under no password's name (kubernetes-secret-generator's `AnnotationSecretSecure: "yes"`;
        # `MYSQL_PASSWORD: "yes"` stays a password: round 64)
        v.lower() in ("yes", "no") and not _PASSWORD_ONLY.search(name)) or (
        bool(name) and (
            (any(form.fullmatch(v) for form in _PUBLISHED_FORMS) and _PASSWORD_WORD.search(name) is None) or
            (_HEADER_NAME.fullmatch(v) is not None and _HEADER_WORD.search(name) is not None) or
            _names_itself(v, name) or _toggles_itself(v, name) or _site_url(v, name) or gpg_key_id(v, name) or
            (_NAME_OF_NAME.fullmatch(v) is not None and _PASSWORD_ONLY.search(name) is None) or
            (_PROMPT_LABEL.fullmatch(v) is not None and _PROMPT_NAME.search(name) is not None) or
            _few_word_chars(v, name) or
            _holds_own_name(v, name) or _names_an_entry(v, name) or _other_reference(v, name) or (
                _parser_token(v, name)) or _fetch_mode(v, name)
            or (_PAGE_FIELD.fullmatch(v) is not None and _PAGER_NAME.fullmatch(name) is not None)
            or (v.lower() in _PG_AUTH_METHODS and _PW_METHOD_NAME.search(name) is not None)
            or (_HASH_VALUE.fullmatch(v) is not None and _hash_name(name))
            or (_ETH_ADDRESS.fullmatch(v) is not None and _last_word(name) in ("address", "addr"))
            # (a path under a name ending in a file's or a folder's word, a CI runner's folder its first part: chart
            # releaser's `GPG_PASSPHRASE_FILE: "${{ runner.temp }}/gpg-passphrase"`, Docker's `POSTGRES_PASSWORD_FILE`)
            or (_last_word(name) in ("file", "path", "dir", "directory") and _HOLE_PATH.fullmatch(v) is not None)
            # (an AWS resource's id under an id's name: KMS' `CustomKeyStoreId: "cks-1234567890abcdef0"`)
            or (_AWS_RESOURCE_ID.fullmatch(v) is not None and _last_word(name) in ("id", "ids"))
            or (_SLOT_NAME.fullmatch(v) is not None and _SLOT_KEY_NAME.search(name) is not None)
            or (v.strip("\"'").lower() in _FLAG_WORDS and _SWITCH_NAME.search(name) is not None)
            or (_last_word(name) in _ABOUT_WORDS and not looks_random(v))
            or (_last_word(name) in ("prefix", "suffix") and _AFFIX.fullmatch(v) is not None and not looks_random(v)
                and _ASCII_WORD_DIGITS.search(v) is None)
            # (a host's name as a prefix: 1Password's operator's `OnepasswordPrefix = "operator.1password.io"`)
            or (_last_word(name) in ("prefix", "suffix") and _HOST_NAME.fullmatch(v) is not None)
            # (an environment variable's name under a name for one: Jenkins' `usernamePassword(…, passwordVariable:
            # 'FLAG')`)
            or (_last_word(name) in ("variable", "var") and _ENV_NAME.fullmatch(v) is not None)
            or (_QUALIFIED_KEY.fullmatch(v) is not None and _PASSWORD_ONLY.search(name) is None)
            or (_LOWER_HEADER.fullmatch(v) is not None and _PASSWORD_WORD.search(name) is None)
            # (a unit of time under a token's name: Cognito's `token_validity_units { access_token = "minutes" }`)
            or (v.lower() in _TIME_UNITS and _PASSWORD_WORD.search(name) is None)
            # (a plugin's version under its name: Jenkins' plugins.txt `ssh-credentials: 1.19`, `token-macro:
            # 267.vcdaea6462991`)
            or (_VERSION.fullmatch(v) is not None and _PASSWORD_OR_SECRET.search(name) is None)
            or (_last_word(name) == "id" and _id_slug(v))
            # (an AWS API model's type, botocore's `"shape": "XmlStringMaxLen256List"`)
            or (name == "shape" and _SHAPE_NAME.fullmatch(v) is not None)
            or (_last_word(name) == "kid" and _KEY_ID.fullmatch(v) is not None and not looks_random(v))
            or _limit_number(v, name) or _message_id(v, name)
            or _words_under_weak_name(v, name) or _label_mapped_to_id(v, name) or _provider_stub(v, name)
            or _sample_words(v, name) or _extends_name(v, name)
            or (_CFN_SERVICE_TOKEN.fullmatch(name) is not None and not looks_random(v))))


_SHAPE_NAME = re.compile(r"_{0,2}[A-Za-z][A-Za-z0-9_]*")
# A JOSE key id, a JWT header's `kid` (pocketbase's `key2Token.Header["kid"] = "key2"`): which key, no key.
_KEY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,39}")
# A command running one script file (a package.json's `"change-password": "node scripts/change-password.js"`).
_SCRIPT_RUN = re.compile(
    r"(?:node|python3?|ruby|bash|sh|deno|bun|tsx|ts-node|npx)[ \t]+[\w./-]+\.(?:[cm]?js|ts|py|rb|sh)")
# A number, maybe with a unit of time, under a name with the word `limit` (supabase's
# `GOTRUE_RATE_LIMIT_TOKEN_REFRESH="30"`): a count or a rate, no token (nine digits at most: dlt's `credentials:
# {chunk_size: 1000000}`).
_LIMIT_NUMBER = re.compile(r"[0-9]{1,9}(?:\.[0-9]+)?(?:ms|[smhd])?")
_LIMIT_WORDS = frozenset("limit limits size max lifetime capacity".split())
# A message's id, dotted words and words joined by `-` last (umami's `newPassword: 'label.new-password'`).
_MESSAGE_ID = re.compile(r"[a-z]{2,}(?:\.[a-z]{2,})*\.[a-z]{2,}(?:-[a-z]{2,})+")


def _limit_number(value: str, name: str) -> bool:
    """A number under a name with a limit's or a size's word (`RATE_LIMIT = 100`, confidant's
    `KMS_AUTH_TOKEN_CACHE_SIZE=4096`, `AUTH_TOKEN_MAX_LIFETIME='10'`): a bound, no secret; never a password's, but
    for a size in bits, whose name's last word says so (terraform-provider-vault's `credential_config.key_bits`,
    "2048")."""
    if _last_word(name) == "bits":
        return value.isdigit() and len(value) <= 5
    return _LIMIT_NUMBER.fullmatch(value) is not None and not _PASSWORD_WORD.search(name) and any(
        w.lower() in _LIMIT_WORDS for w in _IDENT_WORDS.findall(name))


def _message_id(value: str, name: str) -> bool:
    """A message's id ending in its name's last word (`noMatchPassword: 'message.no-match-password'`): which text to
    show, no value (MWS' `amzn.mws.abcdefab-abcd-…` under `key1` is a key)."""
    return _MESSAGE_ID.fullmatch(value) is not None and _last_word(name) in re.split(r"[.-]", value)


def _toggles_itself(value: str, name: str) -> bool:
    """A flag toggled, its own name after `!` (Harbor's `showConfirmPwd = !showConfirmPwd`): code, no value."""
    return value[:1] == "!" and value[1:] == name.strip()


# A Java class by its package (Shiro's `"credentialsMatcher", "org.apache.shiro.…Sha256CredentialsMatcher"`) or a
# Python class by its module, maybe relative (metaflow's plugin `("secrets", ".secrets.secrets_decorator.…")`), an
# XML Schema type (a SOAP service's `'password' => 'xsd:string'`), an expression indexing a name (Shiro's filter
# chain, `token = 'roles["guest, admin"]'`): what a value is or where it comes from, never the value.
_JAVA_CLASS = re.compile(r"\.{0,3}(?:[a-z][a-z0-9_]*\.){2,}[A-Z][a-z]+(?:[0-9]+|[A-Z][a-z]+)*"
                         r"(?:\$[A-Z][A-Za-z0-9_]*)?(?:\.[a-z][A-Za-z0-9_]*)?")
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
    """A bundle's message read with its escaped letters (Struts' `Formularz zosta\\u0142 ju\\u017C…`), or a sentence
    of a script written without blanks (credentials-plugin's Japanese `\\u3053\\u306e\\u8a8d…\\u3002`)."""
    return "\\u" in value and (_is_phrase(text := _unescaped(value)) or _unspaced_sentence(text))


def _unspaced_sentence(text: str) -> bool:
    """Four letters or more beyond Latin and Greek's (Japanese, Chinese, Korean, Cyrillic, …), at least as many as
    ASCII letters and digits, and those ASCII letters and digits, joined, not a generated value's (a token's)."""
    foreign = sum(1 for c in text if c.isalpha() and ord(c) > 0x3ff)
    ascii_alnum = re.sub(r"[^A-Za-z0-9]+", "", text)
    return foreign >= 4 and foreign >= len(ascii_alnum) and not (ascii_alnum and looks_random(ascii_alnum))


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
_DB_FILE = re.compile(r"(?:\.{0,2}/)?(?:[\w.-]+/)*[\w-]+\.(?:db|db3|sqlite3?|mdf)")
_ONE_PART_CONN = re.compile(r"(?i)(?:data ?source|filename|server|host)[ \t]*=[ \t]*(?P<where>[^;=\s]+);?")


def _host_url(value: str) -> bool:
    return _HOST_URL.fullmatch(value) is not None and not any(
        looks_random(p, 8) for p in re.split(r"[.:/,]+", value) if p)


# A database's URL with no password (dlt's `credentials="postgres://loader@localhost:5432/dlt_data"`,
# `"duckdb:///_storage/quack.duckdb"`, `"sqlite:///:memory:"`, `"mssql://host/db?trusted_connection=yes&driver=ODBC+
# Driver+17+for+SQL+Server"`): a scheme, maybe a user, a host (none for a local file's), a path and a query of
# settings. A user and a password (`loader:pass@`) are a URL's credentials, read by their own rule; an empty password
# or a template's hole for it (`postgres:@localhost`, `<user>:<password>@<account>`, `${USER}:${PASSWORD}@`) holds
# none, and a hole may stand for the user, the host, the port or a part of the path (Great Expectations' documented
# `snowflake://<user_login_name>:<password>@<account_identifier>/<database_name>`).
# (a braced hole is a name's letters, as _REFERENCE_OR_PLACEHOLDER reads one: `{Zq5kVrX1n8tA}` is a braced value)
_URL_HOLE = r"<[^<>/@\s]{1,80}>|\$\{[A-Za-z_][\w.]{0,80}\}|\{[A-Za-z_][A-Za-z_.-]{0,80}\}"
_NO_PASSWORD_URL = re.compile(
    rf"[a-z][a-z0-9+.-]{{1,30}}://(?:(?P<user>(?:[A-Za-z0-9._%-]|{_URL_HOLE}){{1,64}})(?::(?:{_URL_HOLE})?)?@)?"
    rf"(?P<host>(?:[A-Za-z0-9._-]|{_URL_HOLE}){{0,253}})(?::(?:[0-9]{{1,5}}|{_URL_HOLE}))?"
    rf"(?P<path>(?:/(?:[\w.~:%-]|{_URL_HOLE}){{0,200}}){{0,30}})"
    rf"(?:\?(?P<query>[\w.~%+-]{{1,80}}=(?:[\w.~%+,-]|{_URL_HOLE}){{0,200}}"
    rf"(?:&(?:amp;)?[\w.~%+-]{{1,80}}=(?:[\w.~%+,-]|{_URL_HOLE}){{0,200}}){{0,30}}))?")
_URL_HOLE_RE = re.compile(_URL_HOLE)
# A host's name and a port (feast's `connection_string: redis.feast.svc.cluster.local:6379`): where, no credential.
_HOST_PORT = re.compile(r"[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,10}:[0-9]{1,5}")


def _no_password_url(value: str) -> bool:
    """A URL of _NO_PASSWORD_URL with no piece generated (a Sentry DSN's key is its user) and no part of its query
    named for a credential but a switch or a hole (`TrustServerCertificate=yes`, `token=<token>`; `?token=…`,
    `&sig=…` are credentials)."""
    m = _NO_PASSWORD_URL.fullmatch(value)
    if m is None or not _no_generated_piece(
            _URL_HOLE_RE.sub("/", f"{m.group('user') or ''}/{m.group('host')}{m.group('path')}")):
        return False
    for part in re.split(r"&(?:amp;)?", m.group("query") or ""):
        key, _, val = part.partition("=")
        val = _URL_HOLE_RE.sub("", val)
        if key and (looks_random(val, 8) or (
                _CONN_CREDENTIAL_PART.search(key) and val and val.lower() not in _FLAG_WORDS)):
            return False
    return True


def _one_part_conn(value: str) -> bool:
    m = _ONE_PART_CONN.fullmatch(value)
    return m is not None and (_file_name(m.group("where")) or _LOCAL_HOST.fullmatch(m.group("where")) is not None or (
        # (a database's file: SQLite's `FileName=tmp/DVCSharp.db`, dvcsharp-api's, `Data Source=app.db`)
        _DB_FILE.fullmatch(m.group("where")) is not None and _no_generated_piece(m.group("where"))))


# Forms published as identifiers, never secrets: an SBOM's SPDX ids (`SPDXRef-Package-…-2c7953c2c68ec3bc`,
# `LicenseRef-<sha256>`), Cloudflare's ray id (`CF-RAY: 93f47072dde6f88d-IAD`), a JSON pointer (`$ref:
# "#/$defs/passwordHistory"`).
# (and AWS Signature Version 4's credential scope, `AKIDEXAMPLE/20150830/us-east-1/sts/aws4_request`: a key's id, a
# day, a region and a service, what the signature is made for; a key id of AWS's form is found by the rule table)
_PUBLIC_FORM = re.compile(r"(?:SPDXRef|LicenseRef|DocumentRef)-[\w.+-]+|[0-9a-f]{16}-[A-Z]{3}|#/[\w$./~-]*"
                          r"|[A-Z0-9]{4,128}/[0-9]{8}/[a-z0-9-]{2,32}/[a-z0-9-]{2,32}/aws4_request"
                          # (an age recipient, the public key SOPS' `.sops.yaml` encrypts to: bech32 after `age1`; its
                          # private key is `AGE-SECRET-KEY-1…`)
                          r"|age1[02-9ac-hj-np-z]{58}"
                          # (a YAML tag reading an environment variable: Recyclarr's `api_key: !env_var SONARR_API_KEY`)
                          r"|!(?:env_var|ENV|env)[ \t]+\$?\{?[A-Za-z_][A-Za-z0-9_]{0,80}\}?"
                          # (an embedded database's name for one held in memory or in a pipeline's folder: SQLite's and
                          # DuckDB's `:memory:`, dlt's `credentials=":pipeline:"`)
                          r"|:memory:|:pipeline:")
# Lower-case words joined by dots (`token: "comment.doc"`, an editor grammar's scope; `"spring.datasource.password"`, a
# property's key): a name. Under a password's or a secret's name only when it names one (`hunter.two` is a password).
# (the first part words joined by `-`: better-auth's tests' `secret: "better-auth.secret"`)
# (a TextMate scope's parts joined by `-` or `_` too, words of letters: the Ace editor's highlight rules' `token:
# "comment.line.double-dash.source.rust"`, `"support.php_tag"`; Vault's batch token `hvb.2_9jmf-ij1ph…` is none)
# (a part of one letter, of digits or a version's, `meta.tag.r`, `markup.heading.1`, `support.function.C99.c`; a
# prefix's trailing dot before a concatenation, `token:"nospell."+e`)
# (never a uuid's groups in it: Amazon MWS' `amzn.mws.4ea38b7b-f563-…` is a token)
_DOTTED_LOWER = re.compile(
    r"(?![\w.-]*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-)"
    r"[a-z]{2,}(?:[-_][a-z]{2,})*(?:(?:\.(?:[a-z]+[0-9]{0,3}|[A-Z][0-9]{1,3}|[0-9]{1,3})(?:[-_][a-z]{2,})*)+\.?|\.)")
# An Ethereum address under a name ending in "address" (`BeeTokenAddress = '0x3643…6E13'`: 40 hex digits, public; a
# private key has 64, and an API's token of the same form stays one: `poly_address_api_token = "0x4Cb0…"`).
_ETH_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
# A file's path from a root, any extension of letters (`api.auth.Password: /foo/bar/Password.js`), and a file's name
# or path by a known extension (`setup_secrets.ps1`, Compose's `file: ca.crt`, `/Media/MyVideo-720p.mp4`): where a
# value is read from, not the value (a key file's name is no key); its folders may be hidden, and it may end in an SSH
# key's file of no extension (shell-plugins' Gitea `ssh_key: ~/.ssh/id_ed25519`).
_SSH_KEY_FILE = r"id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?"
_FILE_PATH = re.compile(r"(?:\.{0,2}/|~/)(?:\.?[A-Za-z0-9_-]+/)*(?:[A-Za-z0-9_-]+\.[A-Za-z]{1,5}|"
                        + _SSH_KEY_FILE + ")")
_FILE_NAME = re.compile(
    r"(?:~/|\.{0,2}/)?(?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.(?:ps1|psm1|sh|bash|bat|cmd|py|rb|js|ts|json|ya?ml|toml|ini|"
    r"cfg|conf|env|txt|md|xml|csv|log|sql|html?|crt|cer|pem|key|p12|pfx|jks|der|csr|pub|keystore|truststore|"
    r"mp4|m4a|m4v|mkv|webm|avi|mov|mp3|aac|flac|ogg|wav|srt|vtt|png|jpe?g|gif|svg|pdf|zip|gz|tgz|tar|jar|war|dll|"
    # (a database's file: dlt's `credentials = "my_data.duckdb"`)
    r"exe|so|dylib|db|db3|sqlite3?|duckdb)")


def _file_name(value: str) -> bool:
    """A file's path or name (_FILE_PATH, _FILE_NAME), no piece of it generated (`/x/Zq8vN3xL0pR7tY2w.js` under a
    password's name is a secret in a path, as the sixteenth round decided)."""
    if _FILE_PATH.fullmatch(value) and not any(looks_random(p, 8) for p in re.split(r"[/.]", value) if p):
        return True
    return _FILE_NAME.fullmatch(value) is not None and _no_generated_piece(value)


def _no_generated_piece(path: str) -> bool:
    """No piece of a path or a file's name between `/`, `.`, `_` and `-` looks generated (`/x/Zq8vN3xL0pR7tY2w.js`)."""
    return not any(looks_random(piece, 8) for piece in re.split(r"[/._-]+", path) if piece)


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
# dotenvx's encrypted value: `encrypted:` and an ECIES ciphertext in base64 (its ephemeral public key first, `B…`),
# written to be committed as SOPS' `ENC[…]` is; its private key (`DOTENV_PRIVATE_KEY`) is the secret.
_DOTENVX_CIPHERTEXT = re.compile(r"encrypted:B[A-Za-z0-9+/]{100,}={0,2}")
# A Python entry point, a module's dotted path and an attribute (`jupyterhub.authenticators.shared:SharedPassword
# Authenticator` under `shared-password` in pyproject.toml's entry points): letters only after the colon.
# (two dots in the module's path, or a class's name of two words or more, or a function's with `_`: `db.local:Secret`,
# a user and a password, is none; a constant's upper-case name after a module's of words joined by `_`: meltano's
# `my_state_manager_password = "my_state_manager.backend:PASSWORD"`)
_ENTRY_POINT = re.compile(r"[a-z_][a-z0-9_]*(?:(?:\.[a-z_][a-z0-9_]*){2,}:[A-Za-z_]{4,}|\.[a-z_][a-z0-9_]*:"
                          r"(?:[A-Z][a-z]+(?:[A-Z][a-z]+)+|[a-z]+(?:_[a-z]+)+))|"
                          r"[a-z]+(?:_[a-z]+)+\.[a-z]+(?:_[a-z]+)*:[A-Z]+(?:_[A-Z]+)*")


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
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    # the OAuth RFCs' own examples, quoted by every library that implements them (oauthlib's docstrings): RFC 6749's
    # access and refresh tokens, code, client id and secret (and its Basic credentials), OpenID Connect Core's token,
    # RFC 5849's consumer keys and tokens (not RFC 6750's `mF_9.B5f-4.1JqM`: Nosey Parker's test counts it a secret)
    "2YotnFZFEjr1zCsicMWpAA", "tGzv3JOkF0XG5Qx2TlKWIA", "SplxlOBeZQQYbYS6WxSbIA", "s6BhdRkqt3", "gX1fBat3bV",
    "czZCaGRSa3F0MzpnWDFmQmF0M2JW", "h480djs93hd8", "SlAV32hkKG", "dpf43f3p2l4k3l03",
    "kd94hf93k423kf44", "hh5s93j4hdidpola", "hdhd0244k9j7ao03", "nnch734d00sl2jdk", "pfkkdhi9sl3r4s00",
    "0685bd9184jfhq22", "ad180jjd733klru7"))
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
# Punctuation standing for a value (`OIDC_CLIENT_SECRET=???`, `--client-secret=...`), or the empty string written out
# (lldap's `[[ "$password" != '""' ]]`).
_PUNCT_ONLY = re.compile(r"[?.\u2026]{2,}|\"\"|''")
# A glob of words (hanko's routes in its tests, `PASSWORD_LOGIN: "**/password/login"`): a path, under any name.
_GLOB_PATH = re.compile(r"(?:\*\*/)+[a-z]+(?:[_-][a-z]+)*(?:/[a-z]+(?:[_-][a-z]+)*)*(?:/\*{1,2})?")
# A format's named hole (`{minLength}`, i18next's `{{value, number}}`), in a message (_hole_message).
_FORMAT_HOLE = re.compile(r"\{\{[^{}\n]*\}\}|\{[A-Za-z_]\w*\}")
_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")


def _hole_message(value: str) -> bool:
    """A message with a format's named hole, in a script beyond ASCII (hanko's `"{passwordRetryAfter}后重试"`,
    `"必须长在{minLength}和{maxLength}字符之间。"`): text, under any name, where no ASCII letter or digit stands outside
    the holes and two letters or more do."""
    if "{" not in value:
        return False
    rest = _FORMAT_HOLE.sub("", value)
    return rest != value and _ASCII_ALNUM.search(rest) is None and sum(c.isalpha() for c in rest) >= 2

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
    "github.com/jcmturner/gokrb5/v8/ctxCredentials"`), or its name's letters in another case (SuperTokens' recipe
    `EMAILPASSWORD: "emailpassword"`, `emailpassword: "Emailpassword"`): a key naming itself, no secret."""
    own = name.strip("\"'`[] ")
    # (a dot file's too: gopass' test of `"/home/user/../bob/.password-store": "/home/bob/.password-store"`)
    return len(own) >= 4 and "/" in value and value.rsplit("/", 1)[1].lstrip(".") == own or (
        len(own) >= 6 and value.isalpha() and value.lower() == own.lower()) or _names_its_kind(value, own)


def _names_its_kind(value: str, own: str) -> bool:
    """A value of its name's first words run together in lower case, a plural's `s` after them (sealed-secrets'
    `SealedSecretPlural = "sealedsecrets"`, external-secrets' `ExternalSecretSubsystem = "externalsecret"`): a kind's
    name. The first word is no secret's (`SECRET_KEY_HMAC = "secretkey"` stays judged), nor are both the value's
    words and the rest of the name (Bitwarden's `topSecretKey = "topsecret"`, a secret's one word)."""
    if not (value.isalpha() and value.islower() and len(value) >= 6):
        return False
    words = [w.lower() for w in _IDENT_WORDS.findall(own)]
    if len(words) < 3 or _has_secret_word(words[0]):
        return False
    # (the head grown one word at a time, and no longer than the value: joined afresh for each length, a name of 8,000
    # words took 0.25 s, quadratic)
    head = words[0]
    for k in range(1, len(words) - 1):
        head += words[k]
        if len(head) > len(value):
            return False
        if value in (head, head + "s") and not (_has_secret_word(head) and _has_secret_word("".join(words[k + 1:]))):
            return True
    return False


# A name's value, words joined by `-` ending in `name` (bank-vaults' flag `cfgK8SSecret = "k8s-secret-name"`): under
# any name but a password's (`password = "k8s-secret-name"` stays judged).
_NAME_OF_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*-name")
_PASSWORD_ONLY = re.compile(r"(?i)passw|passphrase|pwd|pword")
# ... or a secret's (not a credential's: WebAuthn's `"allowed_credentials":["rwOw…="]` are public ids)
_PASSWORD_OR_SECRET = re.compile(r"(?i)passw|passphrase|pwd|pword|secret")
# GnuPG's options that select a key by its id or fingerprint (`default-key 0xD869…`, `--export-secret-key 0xKEYID`,
# git's `signingkey = 3AA5C343…`): which key, no key. The id's hex in one of its three lengths, or `0x` and a
# shouted placeholder. The options as GnuPG and git write them, in lower case: an application's `signingKey` or
# `SIGNING_KEY` in hex is an HMAC's secret (a re-read of round 91 found the first draft took any case).
_GPG_KEY_OPTION = re.compile(r"(?:default|trusted)-key|signingkey|export-secret-(?:sub)?keys?")
_GPG_KEY_ID = re.compile(r"(?:0x)?(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{16}|[0-9A-Fa-f]{40})|0x[A-Z]{3,}")
# A host's name, a URL on that host or below it (gopass' password rules by site, `"victoriassecret.com":
# "https://www.victoriassecret.com/us/account/profile#changePassword"`): the site's page, no secret.
_HOST_NAME = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}")
_URL_HOST = re.compile(r"https?://([a-z0-9.-]+)(?:[:/?#]|$)", re.I)


def _site_url(value: str, name: str) -> bool:
    """A URL on the host its name is, or below it (_HOST_NAME), with no credentials before the host."""
    own = name.strip("\"'`[] ").lower()
    found = _URL_HOST.match(value)
    return found is not None and _HOST_NAME.fullmatch(own) is not None and (
        (host := found.group(1).lower()) == own or host.endswith("." + own))


def gpg_key_id(value: str, option: str) -> bool:
    """A key's id after one of GnuPG's options that select a key (_GPG_KEY_OPTION)."""
    return _GPG_KEY_OPTION.fullmatch(option.strip("-#\"' ")) is not None and _GPG_KEY_ID.fullmatch(value) is not None


# A Kubernetes label's, annotation's or attribute's qualified key, a DNS prefix and a name (`secrets-store.csi.k8s.io/
# managed`, `csi.storage.k8s.io/serviceAccount.tokens`), or an HTTP header's name in lower case (`x-ms-session-token`):
# under any name but a password's, a name.
_QUALIFIED_KEY = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+/[A-Za-z0-9][\w.-]*")
_LOWER_HEADER = re.compile(r"x-[a-z0-9]+(?:-[a-z0-9]+)+")
# An object's member, an expression where a value goes (cryptography's `nid_key = self._lib.NID_pbe_WithSHA1And3_…`).
_OWN_MEMBER = re.compile(r"(?:self|this|cls)(?:\.[A-Za-z_]\w*)+")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")
_TIME_UNITS = frozenset("seconds minutes hours days weeks".split())
# A version: two to four numbers, or Jenkins' incremental one, a number, `.v` and a commit's hex.
_VERSION = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,4}){1,3}|[0-9]{1,5}\.v[0-9a-f]{8,16}")
# A Google Cloud resource's name (a KMS key's, a secret's in Secret Manager: `projects/${PROJECT_ID}/locations/global/
# keyRings/my-keyring/cryptoKeys/my-key`, `projects/p/secrets/db/versions/3`) or an IAM role's (`roles/secretmanager.
# secretAccessor`): which key or secret, no key, as AWS' ARN is.
_GCP_PART = r"(?:\$\{?[A-Za-z_]\w*\}?|[A-Za-z0-9][\w.-]*)"
_GCP_NAME = re.compile(
    rf"projects/{_GCP_PART}/(?:locations/{_GCP_PART}/keyRings/{_GCP_PART}/cryptoKeys/{_GCP_PART}"
    rf"(?:/cryptoKeyVersions/{_GCP_PART})?|secrets/{_GCP_PART}(?:/versions/{_GCP_PART})?)"
    r"|roles/[a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*){0,2}")


# An id's field name in camel case (a minified query's `{token:"snapshotId"}`), under a name with no password's word.
# (or words joined by `-` or `_` ending in `id`: logto's tests' `toHaveBeenCalledWith('access-token',
# 'verification-record-id')`)
_ID_NAME = re.compile(r"[a-z]{3,}(?:[A-Z][a-z]+)*(?:Id|ID)|[a-z]{2,}(?:[-_][a-z]{2,})*[-_]id")
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
_NAME_LETTERS = re.compile(r"[^A-Za-z]+")


def _sample_words(value: str, name: str) -> bool:
    """A test's or a default's words under a key's or a token's name (`API_KEY = 'test-key-001'`), or one such word
    run into the name's own letters (SuperTokens' `apiKey: "testapikey"`); never under a password's name."""
    if _PASSWORD_WORD.search(name) or _PASSWORD_WORD.search(value):
        return False
    if _SAMPLE_WORDS_VALUE.fullmatch(value) is not None and re.match(r"[a-z]+", value.lower())[0] in _SAMPLE_WORDS:
        return True
    # (a word of the name and "val", words after them: envkey's tests' `APP_KEY: "app-val-updated"`)
    if (m := _NAMED_VAL.fullmatch(value)) and m.group(1) in {w.lower() for w in _IDENT_WORDS.findall(name)}:
        return True
    own = _NAME_LETTERS.sub("", name).lower()
    return len(own) >= 3 and value.islower() and any(value == w + own for w in _SAMPLE_WORDS)


_NAMED_VAL = re.compile(r"([a-z]{2,})-val(?:ue)?(?:-[a-z]{2,}){0,3}")


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


# An entry named under a name for a store of them (Kedro's catalog `credentials: dev_s3`, `"s3_creds":
# "s3-bucket-creds"`, an entry of credentials.yml; Prefect's `credentials: "RedisDatabase"`, a block's class):
# lower-case words joined by `_` or `-`, or capitalised words, none a password's or a secret's, nothing generated.
_ENTRY_NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z][a-z0-9]*)+|(?:[A-Z][a-z]{2,}){2,4}")
_STORE_WORDS = frozenset(("credentials", "creds", "secrets"))  # (not `credential`: Iceberg's is a client's secret)
_VOWEL = re.compile(r"(?i)[aeiouy]")  # (a word of four letters or more has one: sonar-java's password `xvxf6_gaa`)
# A local model server's key that it never checks (vLLM's `api_key="EMPTY"`, `api_key='na'`, llama.cpp's
# `sk-no-key-required`, BentoML's `api_key="API_TOKEN_NOT_NEEDED"`, `"not-needed"`): under any name but a password's
# (Spring Security's test user's `.password("empty")` stays one).
_UNCHECKED_KEY = re.compile(
    r"(?i)empty|n/?a|(?:[a-z]+[_-]){0,3}(?:not|no)[_-](?:[a-z]+[_-])?(?:needed|required|used)")
# A connection string's name holding one word or a name, nothing generated (mlrun's `store_connection_string="v3io"`,
# a test's parameters `("connection_string", "expected_table")`): no `:`, `@`, `;` or `=` for a credential to stand
# behind.
_CONN_STRING_NAME = re.compile(r"(?i)conn(?:ection)?[_-]?str(?:ing)?s?[\"'`]?$")
# ... so do a secret's id of two words or more, a name in a store (metaflow's `"secret_id": "the_id"`, AWS Secrets
# Manager's `SecretId`); Vault's AppRole `secret_id`, a generated UUID, stays one.
_SECRET_ID_NAME = re.compile(r"(?i)secret[_-]?id[\"'`]?$")
_ONE_NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z][a-z0-9]*){0,5}")
# A Kubernetes Secret's name under a name for one (mlrun's `k8s_secret: azure-key-vault-secret`,
# `new_image_pull_secret = "my_new_secret"`, fake-leaks' `imagePullSecret="reposure-registry-secrets"`): two words or
# more, then `secret`. Under a secret's own name (Kubeflow's test `MINIO_SECRET_KEY: 'shared-minio-secret'`) such
# words are a test's secret and stay redacted, as `my-super-secret` does here.
_SECRET_OBJECT = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z][a-z0-9]*)+[-_]secrets?")
_SECRET_OBJECT_NAME = re.compile(r"(?i)(?:k8s|kube|kubernetes|image|pull|registry|docker|tls)[_-]?secrets?[\"'`]?$")
_INTENSIFIERS = frozenset("super top very so most ultra really extra".split())


def _names_an_entry(value: str, name: str) -> bool:
    """A value naming where a secret is kept or saying none is checked, not holding one: a local server's unchecked
    key, a store's entry, a connection string's one word, a secret's id of words, a Kubernetes Secret's name."""
    if _UNCHECKED_KEY.fullmatch(value) and _PASSWORD_ONLY.search(name) is None:
        return True
    if _PASS_ANY.search(value) is None and _last_word(name) in _STORE_WORDS and _ENTRY_NAME.fullmatch(value) and (
            "security" not in name.lower()):  # (JNDI's `Context.SECURITY_CREDENTIALS` is a password)
        return _no_generated_piece(value) and all(_VOWEL.search(w) for w in _IDENT_WORDS.findall(value) if len(w) > 3)
    if (_CONN_STRING_NAME.search(name) or (_SECRET_ID_NAME.search(name) and _ENTRY_NAME.fullmatch(value))) and (
            _ONE_NAME.fullmatch(value)) and _PASS_ANY.search(value) is None:
        return _no_generated_piece(value)
    words = re.split(r"[-_]", value)
    return _SECRET_OBJECT.fullmatch(value) is not None and len(words) >= 3 and (
        _SECRET_OBJECT_NAME.search(name) is not None) and not _INTENSIFIERS.intersection(words) and (
        _no_generated_piece(value))


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


# The prefixes _provider_stub knows: the rule table's hints of four characters and more that end in `_`, `-` or `.`
# (`glpat-`, `npm_`, `sk-proj-`), less the ones that are words (`api-`, `key_`, `test_`); _TOKEN's own (`ghp_`,
# `xoxb-`, `sk_live_`); `SG.`, `hf_` and `sk-`, three characters each.
_STUB_WORDS = {"api-", "key-", "key_", "live_", "test_", "pat_", "pat.", "secret_", "1000.", "curlopt_", "bundle_",
               "sdk-", "ico-", "rgapi-"}
_STUB_PREFIX = re.compile("(?i)(?:gh[pousr]_|github_pat_|xox[abeoprs]-|[rs]k_(?:live|test)_|sg\\.|hf_|sk-|" + "|".join(
    re.escape(h) for h in sorted({h.lower() for _, hints, _ in _RULES for h in hints
                                  if len(h) >= 4 and h[-1] in "_-." and h.lower() not in _STUB_WORDS},
                                 key=len, reverse=True)) + ")")

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


# A URL's credentials that are a syntax's words, not a value (`user:password@host:port/dbname`, `username:pwd@`,
# `myuser:mypassword@`): both the user and the password a placeholder word (a word that could be one, `secret`,
# `tiger`, is judged as a password still). A user's `[` opens a syntax's optional part
# (`scheme://[user:passwd@]proxy.server:port`). (Also a token's place, `gist://username:token@id/file`, SMB's user
# after its workgroup, `smb://workgroup;user:password@host`, and fsspec's `github://org:repo@sha/path`.)
_TEMPLATE_USERS = frozenset("user username usr login myuser name org".split())
_TEMPLATE_PASSWORDS = frozenset("password passwd pass pwd pw mypassword token repo".split())
# A user's placeholder named for its service (lldap's `postgres://postgres-user:password@postgres-server/…`).
_SERVICE_USER = re.compile(r"(?i)[a-z]+[-_]user(?:name)?")


def _template_user(user: str) -> bool:
    """A syntax's word for the user (_TEMPLATE_USERS), or one named for its service (`mysql-user`, `db_username`)."""
    return user.lower() in _TEMPLATE_USERS or _SERVICE_USER.fullmatch(user) is not None


# A key's id and its secret named as a URL's user and password (Kedro's `s3://access_key:secret_key@my-bucket/…`):
# both names, no credential; a secret's name alone after a real user (`s3://AKIA…:secret_key@`) is not kept.
_KEY_PAIR_NAMES = frozenset((("access_key", "secret_key"), ("access_key_id", "secret_access_key"),
                             ("key_id", "secret_key"), ("client_id", "client_secret")))


def template_key_pair(user: str, password: str) -> bool:
    return (user.lower().replace("-", "_"), password.lower().replace("-", "_")) in _KEY_PAIR_NAMES


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
    password, each a placeholder word (_TEMPLATE_USERS, _TEMPLATE_PASSWORDS), and no other credential; or every
    credential's part a template's `my` and its own name (_my_own_part)."""
    users, passwords = set(), set()
    creds = list(_CONN_CRED.finditer(text))
    if creds and all(_my_own_part(m.group(3).strip(), m.group(2)) or _conn_hole(m.group(3).strip()) for m in creds):
        return True
    for m in creds:
        key = re.sub(r"[ \t]+", "", m.group(2)).lower().rstrip("=")
        value = m.group(3).strip().lower()
        if key in ("password", "pwd"):
            passwords.add(value)
        elif key in ("userid", "uid", "user", "username"):
            users.add(value)
        else:
            return False
    return bool(users) and bool(passwords) and users <= _TEMPLATE_USERS and passwords <= _TEMPLATE_PASSWORDS


def _my_own_part(value: str, part: str) -> bool:
    """A template's `my` and the part's own name (a documentation's `AccountKey=myAccountKey`, `User Id=myUsername`):
    where a value goes. A user's part may say `myUser` or `myUsername` whatever it is called (`Uid`, `User Id`). A
    password's part is none (`Password=myPassword` is Nosey Parker's and Kingfisher's ODBC example: recall wins)."""
    if not value.startswith("my") or not (_CAMEL_WORDS.fullmatch(value, 2) or _SNAKE_TAIL.fullmatch(value, 2)) or (
            _PASS_ANY.search(part)):
        return False
    own, said = re.sub(r"[\s_=-]", "", part).lower(), value[2:].replace("_", "").lower()
    return said == own or own[:1] == "u" and said in ("user", "username", "userid")


_CAMEL_WORDS = re.compile(r"(?:[A-Z][a-z]+)+")
# (or in snake case: Great Expectations' `AccountKey=my_account_key`)
_SNAKE_TAIL = re.compile(r"(?:_[a-z]+)+")


def _conn_hole(value: str) -> bool:
    """A connection string's part that is a template's hole and nothing else (`AccountKey=<YOUR-STORAGE-ACCOUNT-KEY>`,
    `Password=${DB_PASSWORD}`, `$DB_PASSWORD`): a URL's holes (_URL_HOLE) or a shell's variable."""
    return _URL_HOLE_RE.fullmatch(value) is not None or _SHELL_VAR.fullmatch(value) is not None


_SHELL_VAR = re.compile(r"\$\{?[A-Za-z_]\w*\}?")


def _password_like(value: str) -> bool:
    """A literal given by position that looks like a password: six characters or more, letters with digits or
    signs among them (`p4ssw0rd`, `Tr0ub4dor&3`), no blank, dot, slash, colon, `=`, `,` or `;` (a host, a path, a
    DSN, a user's DN), not a plain word (`mydb`, `admin123`)."""
    return len(value) >= 6 and not re.search(r"[\s./:\\=,;]", value) and re.search(r"[A-Za-z]", value) is not None and (
        re.search(r"[0-9!@#$%^&*+~?]", value) is not None) and not _PLAIN_WORD.fullmatch(value) and (
        not is_benign_value(value, "password"))


# A name that says its password is a switch's (MySQL's `MYSQL_RANDOM_ROOT_PASSWORD=yes`, `MYSQL_ALLOW_EMPTY_PASSWORD`,
# `SKIP_PASSWORD`): a flag's word under it is the switch, no password.
_SWITCH_NAME = re.compile(r"(?i)(?:^|[_.-])(?:random|allow|empty|skip|require|enable|disable|generate)[_.-]")
# A flag's or a null's word: no password, wherever a short value is judged (_VERDICT_WORDS, _QUERY_KEPT).
_FLAG_WORDS = frozenset("true false yes no on off none null nil".split())
