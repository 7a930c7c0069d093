"""Hundred-and-fourth round: dotenvx's encrypted values, left by round 99 (figures: benchmarks/secrets_recall.md,
round 104). A ciphertext made up of the form dotenvx writes: `encrypted:`, then base64 of an ECIES message whose
ephemeral public key comes first (`B…`)."""

from chunkers.redact import REDACTED
from tests.chunkers.redact_asserts import GENERATED, bodies, pair_test

CIPHERTEXT = ("encrypted:BDqDBibm4wsYqMpCjTQ6BsDHmMadg9K3dAt+Z9HPMfLEIRVz50hmLXPXRuDBXaJi/LwWYEVUNiq0HISrslzQPaoyS8Lo"
              "tg3gOWZ7C4dgPsPaPNtPXj9h/gb4rOwGgdc8Wt/6/4/Nzmr3Ek/XSg=")
PRIVATE_KEY = "81dac4d2c42e67a2c6542d3b943a4674a05c4be5e7e5a40a689be7a3bd49a07e"

PAIRS = [
    # committed by design, as SOPS' `ENC[…]` is; what is not ciphertext under the same name stays a secret
    (f'DB_PASSWORD="{CIPHERTEXT}"', f'DB_PASSWORD="{GENERATED}"', GENERATED),
    (f"STRIPE_API_KEY={CIPHERTEXT}", f"STRIPE_API_KEY=encrypted:{GENERATED}", GENERATED),
    (f"  password: '{CIPHERTEXT}'", f"  password: 'encrypted:B{GENERATED}'", GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


def test_an_encrypted_env_file_keeps_its_ciphertexts_and_loses_its_private_key():
    """A `.env` as dotenvx writes it: the public key and the ciphertexts are kept; the private key, kept in
    `.env.keys`, is redacted wherever it is written."""
    env = bodies(".env", f'DOTENV_PUBLIC_KEY="03eaf2142ab3d55be0c6d59aea1c3e5d2b4be81cbd6fd5e0f7ea8b1ad7f6e7e8a9"\n'
                         f'DB_PASSWORD="{CIPHERTEXT}"\n')
    assert CIPHERTEXT in env and REDACTED not in env, env
    keys = bodies(".env.keys", f'DOTENV_PRIVATE_KEY="{PRIVATE_KEY}"\n')
    assert PRIVATE_KEY not in keys and REDACTED in keys, keys
