"""Fiftieth round, after praetorian-inc/titus' new rule examples (held out until the forty-ninth round's figures):
provider forms of their own, from Supabase's `sb_secret_` to an Azure DevOps token of 84 characters and a Google API
key in base64. Kept: the same prefixes on words, names, placeholders and hex of other lengths. Values are made up
here."""

from tests.chunkers.redact_asserts import round_tests

HEX64 = "9f3c2a7b1e6d4f80" * 4
MIX = "Qz7k2Wp9mN4rT8vX"  # 16 characters, both cases and digits
KEPT = [
    "key_" + "9f3c2a7b1e6d4f80" * 2 + "9f3c2a7b",  # 40 hex: a digest's length, no key's
    "cache_key = key_" + "0a1b" * 8,  # 32
    "live_reload_enabled = True",
    "SCALE_MODE = 'live_preview'",
    "cr-review-comment-template",
    "pat_" + "x" * 64,
    "pat_" + "abcdefgh" * 8,  # one case, no digit
    "flp_token_placeholder",
    "sb_secret_<your-secret-key>",
    "access-sandbox-token-here",
    "waka_api_key = os.environ['WAKA_API_KEY']",
    "mergify_application_key_id",
    "key_live_mode_enabled",
    "zpka_<key>",
    "QUl6YVN5 is the base64 of AIzaSy",
    "pat-na1-<token>",
]

REDACTED = [
    ("SUPABASE_KEY = 'sb_secret_Qz7k2Wp9mN4rT8vX1bC5dF3hJ6'", "sb_secret_Qz7k2Wp9mN4rT8vX1bC5dF3hJ6"),
    ('branch.init("key_live_' + MIX * 2 + '")', "key_live_" + MIX * 2),
    ("cr-" + HEX64[:58], "cr-" + HEX64[:58]),
    ("flp_" + MIX * 2 + "Qz7k2Wp9mN4rT8", "flp_" + MIX * 2 + "Qz7k2Wp9mN4rT8"),
    ("zpka_" + HEX64[:32] + "_" + HEX64[:8], "zpka_" + HEX64[:32] + "_" + HEX64[:8]),
    ("key_coze = pat_" + "Qz7k2Wp9mN4rT8vX" * 4, "pat_" + "Qz7k2Wp9mN4rT8vX" * 4),
    ("mergify_application_key_" + MIX * 3 + "_-Zq", "mergify_application_key_" + MIX * 3 + "_-Zq"),
    ("token: access-production-9f3c2a7b-1e6d-4f80-9f3c-2a7b1e6d4f80",
     "access-production-9f3c2a7b-1e6d-4f80-9f3c-2a7b1e6d4f80"),
    ("waka_9f3c2a7b-1e6d-4f80-9f3c-2a7b1e6d4f80", "waka_9f3c2a7b-1e6d-4f80-9f3c-2a7b1e6d4f80"),
    ("cursor: key_" + HEX64, "key_" + HEX64),
    ("retell key_" + HEX64[:28], "key_" + HEX64[:28]),
    ("live_" + HEX64[:32], "live_" + HEX64[:32]),
    (MIX * 3 + "Qz7k" + "JQQJ99" + MIX + "Qz" + "AZDO" + "Qz7k", MIX * 3 + "Qz7k" + "JQQJ99" + MIX + "Qz" + "AZDO" + "Qz7k"),
    ("GOOGLE_KEY_B64: QUl6YVN5RHhZMXRlZjNWUHRfMTVtTzhKWnZiNzBSQVlIZlVLZW9z",
     "QUl6YVN5RHhZMXRlZjNWUHRfMTVtTzhKWnZiNzBSQVlIZlVLZW9z"),
    ("pat-ap1-9f3c2a7b-1e6d-4f80-9f3c-2a7b1e6d4f80", "pat-ap1-9f3c2a7b-1e6d-4f80-9f3c-2a7b1e6d4f80"),
    ("flb_test_Qz7k2Wp9mN4rT8vX1bC5", "flb_test_Qz7k2Wp9mN4rT8vX1bC5"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
