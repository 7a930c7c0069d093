"""Ninety-third round: the Secrets Store CSI driver, its AWS provider, Vault's CSI provider (real code), AzureGoat and
sadcloud (built to leak), read held out after the ninety-second round (figures: benchmarks/secrets_recall.md, round
93). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, round_tests


KEPT = [
    # a Kubernetes label's or attribute's qualified key, an HTTP header's name in lower case
    '\tSecretManagedLabel         = "secrets-store.csi.k8s.io/managed"',
    '\tserviceAccountTokensAttrib = "csi.storage.k8s.io/serviceAccount.tokens"',
    '    SessionToken = "x-ms-session-token"',
    # a placeholder's word run into a token's (vault-csi-provider's tests)
    '\t\tServiceAccountToken: "footoken",',
    # where a request carries a token, an object's member, words before a command's output
    '    session._client_default_token_placement = "query"',
    "        nid_key = self._lib.NID_pbe_WithSHA1And3_Key_TripleDES_CBC",
    'SECRET_ID="test-secret-$(openssl rand -hex 4)"',
    # the OAuth RFCs' own examples (oauthlib's docstrings)
    '            "access_token":"2YotnFZFEjr1zCsicMWpAA",',
    "        Authorization: Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW",
    '        oauth_consumer_key="0685bd9184jfhq22",',
]


REDACTED_CASES = [
    # twins: a password's name keeps its value judged; a secret's keeps a header's name judged
    ('password = "secrets-store.csi.k8s.io/managed"', "secrets-store.csi.k8s.io/managed"),
    ('client_secret = "x-ms-session-token"', "x-ms-session-token"),
    ('password = "foopassword"', "foopassword"),
    (f"nid_key = {GENERATED}", GENERATED),
    (f'SECRET_ID="{GENERATED}-$(date)"', GENERATED),
    # a token like the RFC's, not its
    ('"access_token":"2YotnFZFEjr1zCsicMWpAB",', "2YotnFZFEjr1zCsicMWpAB"),
    ("Authorization: Basic dXNlcjpodW50ZXIyeA==", "dXNlcjpodW50ZXIyeA=="),
    # RFC 6750's bearer token: a scanner's test counts it a secret (Nosey Parker's np.http.2)
    ("Authorization: Bearer mF_9.B5f-4.1JqM", "mF_9.B5f-4.1JqM"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
