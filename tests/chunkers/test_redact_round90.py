"""Ninetieth round: a secret-named list literal's generated items, found reading OWASP's XVWA held out after the
eighty-eighth round (its users' passwords' MD5s under `$pwd`; figures: benchmarks/secrets_recall.md, round 90).
Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, round_tests


KEPT = [
    # a list of names or words under a secret's name (round 23's), a list under no secret's name
    '    String[] SECRETS = {"secret", "admin"};',
    "$uname = array('admin','xvwa','user');",
    f"user_ids = ['{GENERATED}', '{GENERATED}x']",
    # a list under a name about passwords
    f"password_fields = ['{GENERATED}']",
    # a credential's list is not a secret's: WebAuthn's allowed credentials are public ids (Authelia's logs)
    f'{{"allowed_credentials":["{GENERATED}="]}}',
    # an object's member inside the list, or an object under the name: the member has a name of its own (Kratos',
    # Cloud Foundry's)
    f'secrets = [{{"id":"{GENERATED}"}}]',
    f'"secrets":{{"name":"{GENERATED}"}}',
    # a call's argument inside the list is the call's
    f'passwords = [digest("{GENERATED}", 12)]',
]


REDACTED_CASES = [
    # a PHP array of hashes under a password's name (XVWA's, made up)
    ("$pwd = array('9b74c9897bac770ffc029102a200c5de','c4ca4238a0b923820dcc509a6f75849b');",
     "9b74c9897bac770ffc029102a200c5de"),
    # a list, a Java array, a Set.of under a secret's name
    (f"passwords = ['{GENERATED}', 'hunter2x']", GENERATED),
    (f'String[] SECRETS = new String[] {{"{GENERATED}"}};', GENERATED),
    (f'Set<String> secrets = Set.of("{GENERATED}");', GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
