"""Ninety-seventh round: look-alikes found reading hvac, community.hashi_vault, kubernetes-secret-generator, Jenkins'
credentials plugin (real code), python-insecure-app and OWASP's WebGoatPHP (built to leak) held out after the
ninety-sixth round (figures: benchmarks/secrets_recall.md, round 97). Values made up where a secret is meant."""

from chunkers.redact import REDACTED, redact_value
from tests.chunkers.redact_asserts import GENERATED, pair_test


PAIRS = [
    # a Vault accessor (a public handle), a length
    ('    "secret_id_accessor": "84896a0c-1347-aa90-a4f6-aca8b7558780",',
     '    "secret_id": "84896a0c-1347-aa90-a4f6-aca8b7558780",', "84896a0c-1347-aa90-a4f6-aca8b7558780"),
    ('    secret.AnnotationSecretLength: "42",', f'    secret.AnnotationSecret: "{GENERATED}",', GENERATED),
    # a PGP public key to encrypt with; a passphrase's name after it stays one
    ('    root_token_pgp_key="abc",', f'    root_token_pgp_key_passphrase="{GENERATED}",', GENERATED),
    # AWS Signature Version 4's credential scope; a key id of AWS's form in it stays redacted
    ('    "Credential=AKIDEXAMPLE/20150830/us-east-1/sts/aws4_request",',
     '    "Credential=AKIAZQ8VN3XL0PR7TY2W/20150830/us-east-1/sts/aws4_request",', "AKIAZQ8VN3XL0PR7TY2W"),
    # a regex's classes, a TextMate scope (Ace's highlight rules), a message with format holes, a switch's word
    ("    const NAMED_TOKEN      = ':[a-zA-Z_][a-zA-Z0-9_]*';", f"    const NAMED_TOKEN      = ':{GENERATED}';",
     GENERATED),
    ('{token:"comment.line.double-dash.source.rust",regex:"//.*$"}', f'{{token:"{GENERATED}",regex:"//.*$"}}',
     GENERATED),
    ('{token:"nospell."+e,regex:"x"}', f'{{token:"{GENERATED}"+e,regex:"x"}}', GENERATED),
    ("expectedToken:\"%1 expected near '%2'\",", f'expectedToken:"{GENERATED}",', GENERATED),
    ('  labelSecretGeneratorTest: "yes",', f'  labelSecretGeneratorTest: "{GENERATED}",', GENERATED),
    # Jinja's `~` concatenation around a variable
    ("  x: \"{{ lookup('hashi_vault', 'secret=' ~ vault_kv2_api_path ~ '/secret2') }}\"",
     f"  x: \"{{{{ lookup('hashi_vault', 'secret={GENERATED}/secret2') }}}}\"", GENERATED),
    # a message in Japanese, escaped, in a .properties bundle
    ("noCredentials=\\u3053\\u306e\\u8a8d\\u8a3c\\u30c9\\u30e1\\u30a4\\u30f3\\u306f\\u672a\\u8a2d\\u5b9a\\u3067\\u3059\\u3002",
     f"noCredentials={GENERATED}", GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


def test_a_messages_sign_an_actions_name_and_a_credentials_hosts_are_kept():
    """Jenkins' bundle's `Password is short (< 14 characters)`, its action's name, and its configuration's
    `hostnameSpecification: {includes: "*.test.com"}`; a password's value beside them stays judged."""
    assert redact_value(("CertificateCredentialsImpl", "ShortPassword"), "Password is short (< 14 characters)") == (
        "Password is short (< 14 characters)")
    spec = ("credentials", "system", "domainCredentials", "0", "domain", "specifications", "0", "hostnameSpecification")
    assert redact_value(spec + ("includes",), "*.test.com") == "*.test.com"
    assert redact_value(("credentials", "system", "password"), "hunter2x") == REDACTED
    # an action's name in a bundle (`UpdateCredentialAction=Update`); a credential's name alone stays one
    assert redact_value(("CredentialsStoreAction", "UpdateCredentialAction"), "Update") == "Update"
    assert redact_value(("CredentialsStoreAction", "UpdateCredential"), GENERATED) == REDACTED
