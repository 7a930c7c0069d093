"""Seventy-fifth round: Spring Security, django-rest-framework and Portainer (real code) read held out after the
seventy-fourth round (figures: benchmarks/secrets_recall.md, round 75). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import round_tests


KEPT = [
    # code after a variable named `authorization` (Spring Security's tests): a class, a member of one, a call
    "\t\tOAuth2Authorization authorization = TestOAuth2Authorizations.authorization(registeredClient).build();",
    "\t\tOAuth2Authorization authorization = TestOAuth2Authorizations",
    "authorization = OAuth2Authorization.from(authorization)",
    # a policy about credentials (WebAuthn)
    '"credentialProtectionPolicy": "userVerificationOptional",',
    # a browser storage's slot under a storage key's name (Portainer's datatables)
    "const storageKey = 'k8sAppEventsDatatable';",
    "storage-key=\"'kubernetes.volume.events'\"",
]


REDACTED_CASES = [
    # a header's value with no scheme, generated-looking; a value after a scheme's word
    ("Authorization: Zq8fK2pLm9xTv4RwYb7N", "Zq8fK2pLm9xTv4RwYb7N"),
    ('authorization = "Ab1Cd2Ef3Gh4"', "Ab1Cd2Ef3Gh4"),
    ("Authorization: Api-Token 22cb3f8a9d", "22cb3f8a9d"),
    # an Azure storage account's key, and a generated value under a storage key's name
    ('AZURE_STORAGE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGx=="',
     "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGx=="),
    ("storageKey = 'Zq8fK2pLm9xTv4RwYb7N'", "Zq8fK2pLm9xTv4RwYb7N"),
    # a credential's value beside a policy's name
    ('"credentialSecret": "Zq8fK2pLm9xTv4RwYb7N",', "Zq8fK2pLm9xTv4RwYb7N"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
