"""Seventy-eighth round: Authlib, django-oauth-toolkit, node-oidc-provider, pomerium, KeePassXC, NextAuth.js (real
code), Metasploitable3 and the Secure Coding Dojo read held out after the seventy-seventh round (figures:
benchmarks/secrets_recall.md, round 78). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, round_tests


KEPT = [
    # a JOSE algorithm's registered name (an OpenID client's metadata)
    "  id_token_signed_response_alg: 'PS256',",
    "      id_token_encrypted_response_enc: 'A128CBC-HS256',",
    "    id_token_encrypted_response_alg: 'ECDH-ES+A128KW',",
    "    expect(response.body).to.have.property('id_token_signed_response_alg', 'RS256');",
    "        client.idTokenEncryptedResponseAlg = 'RSA-OAEP';",
    # a moment in ISO 8601
    "\t\t<MasterKeyChanged>2012-04-05T17:09:34Z</MasterKeyChanged>",
    # how a token is delivered, when a secret expires, what hashes secrets
    "    if (client.backchannelTokenDeliveryMode === 'ping') {",
    '      client_secret_expires_at: "foobar",',
    '        "CLIENT_SECRET_HASHER": "default",',
    # a credential's identifier, a token's scope
    "      credential_configuration_id: 'org.iso.18013.5.1.mDL',",
    "      credential_identifier: 'mDL-instance-1',",
    '        self.access_token.scope = "can_touch_this"',
    # a storage's key prefix
    '    verificationTokenKeyPrefix: "user:token:",',
    # an OAuth provider's token endpoint
    '    token: "https://graph.facebook.com/oauth/access_token",',
    '      token: "https://www.reddit.com/api/v1/access_token",',
    # a help text's placeholder in brackets
    "                    [--client-secret CLIENT_SECRET]",
    # a coverage badge's graph token
    '<img src="https://codecov.io/gh/authlib/authlib/graph/badge.svg?token=BQKzPoql9j"/>',
    '<img alt="Codecov" src="https://img.shields.io/codecov/c/github/o/r?token=o2KN5GrPsY&style=flat-square">',
]


REDACTED_CASES = [
    # an algorithm's name and a date under a password's or a secret's name
    ('client_secret = "HS256"', "HS256"),
    ('    password: "2012-04-05"', "2012-04-05"),
    # generated values under the same names
    (f'      client_secret_expires_at: "{GENERATED}",', GENERATED),
    (f"    if (client.backchannelTokenDeliveryMode === '{GENERATED}') {{", GENERATED),
    (f'    verificationTokenKeyPrefix: "{GENERATED}",', GENERATED),
    # a URL whose path or query carries the token
    (f'    token: "https://api.example.com/v1/{GENERATED}",', GENERATED),
    (f'    token: "https://api.example.com/v1/token?access_token={GENERATED}",', GENERATED),
    # Codecov's upload token is no badge's
    (f"curl https://codecov.io/upload/v2?token={GENERATED}&commit=abc", GENERATED),
    (f"  --client-secret {GENERATED}]", GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
