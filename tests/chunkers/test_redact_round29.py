"""Twenty-ninth round: the forms leaktk/fake-leaks (development from this round) showed missed. Found: a Kubernetes
Secret's `data:` value written as a block scalar (`.dockercfg: |` or `>` then its lines) and a Secret declared as
`kind: secret`; a JSON pair whose quotes are escaped inside a string (`"{\\"auths\\":{…{\\"auth\\":\\"…\\"}}}"`,
once or more) and a YAML line after an escaped line break (`"id: …\\nsecret: …\\n"`), each judged as its unescaped
one-line form; a PEM private key in base64 (`LS0tLS1CRUdJTiBSU0Eg…`), also wrapped over lines; yescrypt and Sun MD5
password hashes; Vault's CLI given `secret_id=` / `password=`; Gradle's `secretKey "…"` (a command call with no
`=`). Kept: a Secret's data value of under four characters once decoded (`YmFyCg==`), a ConfigMap's data, a Helm
template, a certificate in base64, an escaped pair holding a placeholder, `${…}` or an empty value, a name with no
secret's word, `printf` formats, LaTeX's `$y$`, variables given to Vault and Gradle; newly kept, a build's token to
replace (`@DB_PASSWORD@`, `@@PASSWORD_PLACEHOLDER@@`, `$NAME$`, `#NAME#`, `__NAME__`, `#{Name}#`, `[%NAME%]`), the
look-alikes fake-leaks' placeholder file holds. Values are made up here."""

import base64

import pytest

from chunkers.redact import redact_text
from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

PW = "Tr4in-Ledger-91"
B64 = base64.b64encode(b'{"auths":{"registry.example.test":{"auth":"' + GENERATED.encode() + b'"}}}').decode()
KEY_B64 = base64.b64encode(b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB"
                           + GENERATED.encode() * 3 + b"\n-----END OPENSSH PRIVATE KEY-----\n").decode()
CERT_B64 = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQsw"
                            + b"\n-----END CERTIFICATE-----\n").decode()
YESCRYPT = "$y$j9T$Fq2mC8r1Lp0ZsW4xK7nV3.$" + "Hd5Ra9Qm2Xt7Lw0Ck4Np8Bz6Vy1Jg3Fs5Tu9Ee2Ri7O"
SUNMD5 = "$md5,rounds=9000$Kp3Rt8Wq$$Lm4Ny7Pz2Qa5Rb8Sc1Td3/"


def _secret(kind: str, key: str, block: str) -> str:
    return f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: app\ndata:\n  {key}: {block}\n"


def _wrapped(b64: str) -> str:
    return "\n".join(b64[i:i + 76] for i in range(0, len(b64), 76))


# (look-alike, its secret twin, the twin's secret)
PAIRS = [
    # newly found: a Secret's data value as a block scalar, literal or folded
    (_secret("ConfigMap", ".dockercfg", "|\n    " + B64), _secret("Secret", ".dockercfg", "|\n    " + B64), B64),
    (_secret("Secret", "config", "|\n    {{ .Values.config | b64enc }}"),
     _secret("Secret", ".dockercfg", ">\n    " + B64), B64),
    # newly found: `kind: secret` (lower case, quoted or not); a value of under four characters once decoded stays
    (_secret("secret", "extra", "YmFyCg=="), _secret('"secret"', "extra", "YWRtaW46Tm90LWEtcmVhbC0xOQ=="),
     "YWRtaW46Tm90LWEtcmVhbC0xOQ=="),
    # newly found: an escaped JSON pair, once and twice escaped
    ('"{\\"auths\\":{\\"quay.io\\":{\\"auth\\":\\"\\",\\"email\\":\\"user@example.test\\"}}}"',
     '"{\\"auths\\":{\\"quay.io\\":{\\"auth\\":\\"' + GENERATED + '\\",\\"email\\":\\"user@example.test\\"}}}"',
     GENERATED),
    ('"\\"{\\\\\\"password\\\\\\":\\\\\\"${DB_PASSWORD}\\\\\\"}\\""',
     '"\\"{\\\\\\"password\\\\\\":\\\\\\"' + PW + '\\\\\\"}\\""', PW),
    ('"{\\"token_type\\":\\"bearer\\",\\"scope\\":\\"read\\"}"',
     '"{\\"access_token\\":\\"' + GENERATED + '\\",\\"scope\\":\\"read\\"}"', GENERATED),
    # newly found: a YAML line after an escaped line break in a JSON string
    ('{\n  "config": "id: 248de033\\npassword: changeme\\n"\n}',
     '{\n  "config": "id: 248de033\\nsecret: ' + GENERATED + '\\n"\n}', GENERATED),
    ('printf("user: %s\\npassword: %s\\n", user, pw);', '"a: 1\\npassword=' + PW + '\\n"', PW),
    # newly found: a PEM private key in base64, on one line or wrapped; a certificate stays
    ("tls.crt: " + CERT_B64, "tls_bundle: " + KEY_B64, KEY_B64),
    (_wrapped(CERT_B64), _wrapped(KEY_B64), KEY_B64[:76]),
    # newly found: yescrypt and Sun MD5 hashes
    ("the fitted $y$ against $\\hat{y}$", "admin:" + YESCRYPT + ":19800:0:99999:7:::", YESCRYPT.rsplit("$", 1)[1]),
    ("crypt_algorithms_allow=1,2a,md5,5,6", "root:" + SUNMD5 + ":6445::::::", SUNMD5.rsplit("$", 1)[1]),
    # newly found: Vault's CLI and Gradle's credentials
    ("vault write auth/approle/login role_id=$ROLE_ID secret_id=$SECRET_ID",
     "vault write auth/approle/login role_id=6f1a0c9e-2b7d-4e0a-9c31-5d8e7f2a4b60 secret_id=" + GENERATED, GENERATED),
    ('            secretKey System.getenv("AWS_SECRET_ACCESS_KEY")', '            secretKey "' + PW + '"', PW),
    ('            accessKey "$awsAccessKey"', '            accessKey "' + GENERATED + '"', GENERATED),
    # newly kept: a build's token to replace (an upper-case name between a pair of delimiters); a value between the
    # same delimiters that is no upper-case name goes
    ("db.password=@DB_PASSWORD@", "db.password=@" + PW + "@", PW),
    ("secret='@@PASSWORD_PLACEHOLDER_123@@'", "secret='@@" + GENERATED + "@@'", GENERATED),
    ('"password": "$CREDENTIAL_PLACEHOLDER$"', '"password": "$' + PW + '$"', PW),
    ("client_secret: __GITLAB_OAUTH_SECRET__", "client_secret: __" + GENERATED + "__", GENERATED),
    ('<add key="ApiToken" value="#{Api.Token}#" />', '<add key="ApiToken" value="#' + GENERATED + '#" />', GENERATED),
]

KEPT = [
    _secret("Secret", "token", '""'),
    "vault write auth/approle/role/app secret_id_ttl=10m token_num_uses=10",
    '"{\\"secret_name\\":\\"my-app-secret\\"}"',
    '"a: 1\\nsecret: ${APP_SECRET}\\n"',
    # an escaped line is judged as written, blanks kept (kics' metadata: Terraform in a JSON description)
    '"descriptionText": "```hcl\\n  password_reuse_prevention      = 24\\n}\\n```"',
    '"code": "\\n    administrator_login_password = azurerm_key_vault_secret.db_pswd.value\\n"',
]

REDACTED_CASES = [
    (_secret("Secret", ".dockerconfigjson", "|-\n    " + _wrapped(B64).replace("\n", "\n    ")), B64[:76]),
    ("kubectl create secret generic x --from-literal=key=" + KEY_B64, KEY_B64),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


@pytest.mark.parametrize("lines", [_wrapped(KEY_B64), "key: |\n  " + _wrapped(KEY_B64).replace("\n", "\n  ")])
def test_every_line_of_a_wrapped_key_goes(lines):
    out = redact_text(lines).split("\n")
    assert all(line.strip() in ("[REDACTED]", "key: |", "key: [REDACTED]") for line in out if line.strip()), out


def test_a_block_scalar_ends_at_its_keys_indent():
    text = _secret("Secret", "cfg", "|\n    " + B64) + "  other: " + GENERATED + "\ntype: Opaque\n"
    out = redact_text(text)
    assert B64 not in out and GENERATED not in out and "type: Opaque" in out and "name: app" in out
