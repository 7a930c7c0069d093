"""Forty-first round: sonar-text's misses. A private key's DER in base64 with no PEM armour (PKCS#1, PKCS#8, SEC1,
known by its first bytes and its length, alone or wrapped over lines); a .NET `<RSAKeyValue>`'s private parameters;
a secret's literal fallback in an object's property or after Python's `or`; a generated key of punctuation in a
`.env` line; a SonarQube token under its names (Ant's property, Windows' `setx`); a GitHub token as a URL's user;
an Infura key in its endpoint; an Azure subscription key in a URL or its header. Kept: a certificate, a public key,
a key's header glued to other base64, a public `<RSAKeyValue>`, a placeholder or a call in each one's place. The
keys are made up here: the right first bytes, then filler."""

import base64
import hashlib

from tests.chunkers.redact_asserts import GENERATED, round_tests


def _der(head: str, total: int) -> str:
    """base64 of `total` bytes: the hex header, then filler."""
    body = bytes.fromhex(head)
    filler = b"".join(hashlib.sha256(bytes([i])).digest() for i in range(total // 32 + 1))
    return base64.b64encode(body + filler[:total - len(body)]).decode()


RSA_PKCS1 = _der("308204a40201000282010100", 0x4a4 + 4)  # SEQUENCE, INTEGER 0, the modulus's INTEGER
RSA_PKCS8 = _der("308204be020100300d06092a864886f70d0101010500048204a8", 0x4be + 4)
EC_SEC1 = _der("30770201010420", 0x77 + 2)  # SEQUENCE, INTEGER 1, the private scalar's OCTET STRING
ED25519 = _der("302e020100300506032b657004220420", 0x2e + 2)
CERT = _der("308203773082025fa003020102", 0x377 + 4)  # SEQUENCE of SEQUENCE: a certificate
SPKI = _der("30820122300d06092a864886f70d01010105000382010f00", 0x122 + 4)  # a public key
RSA_PUBLIC = _der("3082010a0282010100", 0x10a + 4)  # PKCS#1's public key: a long INTEGER first
GLUED = EC_SEC1[:60] + "JustSomeUnrelatedRandomBase64DataAppendedToTheHeader"  # longer than its SEQUENCE
HEX40 = "5b1f0c9e2a7d4386b0e9f15c3a2d8e7f604b9c1d"
HEX32 = "7c2e9a4f0b8d1e6c3f5a2b9d0e7c4a18"
PUNCT = "q8&z2m!x7#k(p4)w9=v3+t6_n1^r5*b0@y%c8-j2h4"

KEPT = [
    f'static final String CERT = "{CERT}";',
    f'const publicKey = "{SPKI}";',
    f'RSA_PUBLIC = "{RSA_PUBLIC}"',
    f'const notAKey = "{GLUED}";',
    "<RSAKeyValue><Modulus>r2Xv9vSGWkaepsOR</Modulus><Exponent>AQAB</Exponent></RSAKeyValue>",
    "  password: opts.password || 'default',",
    'token = os.environ.get("TOKEN") or "not-set"',
    "SECRET_KEY=get_random_secret_key()",
    "DB_PASSWORD=$(cat /run/secrets/db_password)",
    "git clone https://octocat@github.com/acme/repo.git",
    f"git checkout {HEX40}",
    "const RPC = 'https://mainnet.infura.io/v3/your-api-key'",
    "const RPC = 'https://mainnet.infura.io/v3/{API_KEY}'",
    '<property name="sonar.host.url" value="https://sonarcloud.io" />',
    "'Ocp-Apim-Subscription-Key': '{subscription-key}'",
]

REDACTED = [
    (f'private static final String RSA_KEY = "{RSA_PKCS1}";', RSA_PKCS1[20:60]),
    (f'const key = "{RSA_PKCS8}"', RSA_PKCS8[20:60]),
    (f'const ecKey = "{EC_SEC1}";', EC_SEC1[20:60]),
    (f"ed25519: {ED25519}", ED25519[20:60]),
    # wrapped at 64, no armour: every line of it
    ("\n".join(RSA_PKCS1[i:i + 64] for i in range(0, len(RSA_PKCS1), 64)), RSA_PKCS1[640:704]),
    ("<RSAKeyValue><Modulus>r2Xv9vSGWkaepsOR</Modulus><Exponent>AQAB</Exponent><P>6T6DLbUsZoYlD81A</P>"
     f"<D>{GENERATED}</D></RSAKeyValue>", GENERATED),
    (f"  SONARQUBE_TOKEN: process.env.SONARQUBE_TOKEN || '{HEX40}',", HEX40),
    (f"  clientSecret: process.env.APP_SECRET || '{GENERATED}',", GENERATED),
    (f'token = os.environ.get("TOKEN") or "{GENERATED}"', GENERATED),
    (f"SECRET_KEY={PUNCT}", PUNCT),
    (f'setx "SONAR_TOKEN" "{HEX40}"', HEX40),
    (f'<property name="sonar.login" value="{HEX40}" />', HEX40),
    (f"git clone https://{HEX40}@github.com/acme/repo.git", HEX40),
    (f"'1': 'wss://mainnet.infura.io/ws/v3/{HEX32}',", HEX32),
    (f"new LuisDialog('https://api.example.test/luis/v1/application?id=1&subscription-key={HEX32}');", HEX32),
    (f'client.DefaultRequestHeaders.Add("Ocp-Apim-Subscription-Key", "{HEX32}");', HEX32),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
