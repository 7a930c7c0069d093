"""Sixth round (issue 33): kingfisher's and whispers' misses, fixed by general rules. Each fix has a case that
fails without it and a look-alike (or a positive) beside it. Values are made up here."""
from chunkers.redact import REDACTED, redact_text
from tests.chunkers.redact_asserts import round_tests

KEPT = [
    # a weak name's unquoted value that is no generated one, a uuid, a database's key, a digest
    "sort_key = created_at_desc",
    "cache_key: 9f5c17d2-957e-4dda-ae24-811274ed88e5",
    "foreignKey=Mq8ZrT2vLx9WmP4kN7sYbQ",
    "primary_key: R69t5DIhugy2Bf62Prs2Yj",
    "checksum_key=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "monkey_patch: Mq8ZrT2vLx9WmP4kN7sYbQ",
    # a label and a value on their line: a digest, a slug, a public key, a word under a weak name
    "primary key 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Sort key   userName_createdAt_2024",
    "public key AAAAC3NzaC1lZDI1NTE5AAAAIFake0123xyz",
    "the cache key 4Fa83E1Dc6b92CAeE780C9b47dd9bE34",
    # a name and a value apart: the name is none of a secret's
    '{"key": "password_policy", "value": "strict"}',
    '{"name": "token_type", "value": "bearer"}',
    '{"key": "password", "value": "${DB_PASSWORD}"}',
    # a multiple assignment: the secret-named value is a variable, or no name is a secret's
    'user, password := "alice", os.Getenv("PW")',
    'name, token_type = "x", "bearer"',
    # a label ending in `=`/`:` before a value that is no generated one, a database's key
    "the sort key: userName_createdAt_2024x",
    ":param token: the_token_to_use_here",
    "partition key = Mq8ZrT2vLx9WmP4kN7sYbQ",
    # Dockerfile's `ENV NAME value`: a URL, a file's path, a variable, a template
    "ENV TOKEN_URL https://example.com/token",
    "ENV PASSWORD_FILE /run/secrets/db_password",
    "ENV API_KEY $API_KEY",
    "ENV DRONE_TOKEN {{ DRONE_TOKEN }}",
    # kingfisher's forms: near misses
    "see na1.example.com for the region",
    "ion_channel_open_probability_for_tests",
    "pub-c-<publish-key>",
    "VF.DM.<api-key>",
]

REDACTED_CASES = [
    # (line, the secret that must go)
    ("klipfolio_key=1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P", "1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P"),
    ("box-key = 4Fa83E1Dc6b92CAeE780C9b47dd9bE34", "4Fa83E1Dc6b92CAeE780C9b47dd9bE34"),
    ("aws_key: PA3XsxZ8d8cPQLmnZzFAKEdzC6ND2a8vhbyXU/Dw", "PA3XsxZ8d8cPQLmnZzFAKEdzC6ND2a8vhbyXU/Dw"),
    ("hubspotKey=Mq8ZrT2vLx9WmP4kN7sYbQ", "Mq8ZrT2vLx9WmP4kN7sYbQ"),
    ("boxSECRET 1234567890abcdef1234567890abcdef", "1234567890abcdef1234567890abcdef"),
    ("Slack token 4Fa83E1Dc6b92CAeE780C9b47dd9bE34", "4Fa83E1Dc6b92CAeE780C9b47dd9bE34"),
    ("  # deploy key  Zq5kVrX1n8tAq8ZrT2vLx9Wm", "Zq5kVrX1n8tAq8ZrT2vLx9Wm"),
    ('{"key": "password", "value": "Hunt3rPw9"},', "Hunt3rPw9"),
    ('{"key": "business.password", "value": "Hunt3rPw9"}', "Hunt3rPw9"),
    ("{name: 'API_TOKEN', value: 'Zq5kVrX1n8tA'}", "Zq5kVrX1n8tA"),
    ('const dbPassword, apiToken string = "Hunt3rPw9", "Zq5kVrX1n8tA"', "Zq5kVrX1n8tA"),
    ('user, password := "alice", "Hunt3rPw9"', "Hunt3rPw9"),
    ("confluent secret=Zq5kVrX1n8tAq8ZrT2vLx9Wm", "Zq5kVrX1n8tAq8ZrT2vLx9Wm"),
    ("ngrok authtoken: 2Ot3hdNCKF3JRJDCioqNV2J0PPc_6th2CSUm9KsjfXdtRDvzT", "2Ot3hdNCKF3JRJDCioqNV2J0PPc_6th2CSUm9KsjfXdtRDvzT"),
    ("ENV DRONE_TOKEN YXNkZmZmZmZm_Hunt3r", "YXNkZmZmZmZm_Hunt3r"),
    ('ENV DB_PASSWORD "Hunt3rPw9"', "Hunt3rPw9"),
    # kingfisher's forms
    ("na1.NOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+ABCDEFGHIJKL",
     "NOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
    ("ion_VNR17uGgdxr9P2aOrCulvSLTFDqijIV2ImQsOUhDEI", "VNR17uGgdxr9P2aOrCulvSLTFDqijIV2ImQsOUhDEI"),
    ("mdb_sa_sk_BdIX_jLzut2WTgglKzKvSgWMDDj5hEoTqdwOyLOL", "BdIX_jLzut2WTgglKzKvSgWMDDj5hEoTqdwOyLOL"),
    ("pub-c-12345678-1234-1234-1234-123456789012", "12345678-1234-1234-1234-123456789012"),
    ("VF.WS.abcdef1234567890abcdef12.asdfghjklzxcvbnm", "abcdef1234567890abcdef12"),
    ("sk-ant-api668-Clm512odot9WDD7itfUU9R880nefA1EtYZDbpE-C9b0XQEWpqFKf9DQUo03vOfXl16oSmyar1CLF1SzV3YzpZJ6bahcpLAA",
     "Clm512odot9WDD7itfUU9R880nefA1EtYZDbpE"),
    ("CCIPAT_lZyPAuThWn2G908ssDT0g33e_t7qh0r5hrvsqzmuraqzduq6qco5onxgrtcn7y2z4", "lZyPAuThWn2G908ssDT0g33e"),
    ("sgp_1234567890abcdef_local_abcdef12345678901234567890abcdef12345678", "abcdef12345678901234567890abcdef12345678"),
    ("tfp_abcdef9876543210jklmnopqrstuvwxyz6543210hi", "abcdef9876543210jklmnopqrstuvwxyz6543210hi"),
    ("xai-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_ABCDEFGHIJKLMNOpqrstuvwxyz0123456AbCdEfGhIj", "AbCdEfGhIjKlMnOpQrStUvWxYz"),
]


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_multiple_assignment_pairs_names_and_values_by_position():
    # the user's name stays; before, `password = "alice"` was read as a pair and the password kept
    assert redact_text('user, password = "alice", "Hunt3rPw9"') == f'user, password = "alice", "{REDACTED}"'
