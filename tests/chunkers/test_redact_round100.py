"""Hundredth round: look-alikes found reading Doppler's CLI, the Secrets Store CSI driver's Azure and Google Cloud
providers, envkey, dotenv-linter (real code) and VulnLab (built to leak) held out after the ninety-ninth round
(figures: benchmarks/secrets_recall.md, round 100). Values made up where a secret is meant."""

from chunkers.redact import REDACTED
from tests.chunkers.redact_asserts import GENERATED, bodies, pair_test

PAIRS = [
    # an Azure Resource Manager template's expression: what the deployment reads, a parameter or a step's output
    ("""    "adminPassword": "[parameters('adminPassword')]",""", f'    "adminPassword": "[{GENERATED}]",', GENERATED),
    ("""    "enableSyncSecret": "[string(steps('configuration').secretSync.enableSyncSecret)]",""",
     f'    "enableSyncSecret": "{GENERATED}",', GENERATED),
    # a public key's short name (a minisign key to verify a download with)
    ("MINISIGN_PUBKEY=RWQ5lgVbbidOxaoIEsqZjbI6hHdS5Ri/SrDk9rNFFgiQZ4COuk6Li2HK",
     "MINISIGN_KEY=RWQ5lgVbbidOxaoIEsqZjbI6hHdS5Ri/SrDk9rNFFgiQZ4COuk6Li2HK",
     "RWQ5lgVbbidOxaoIEsqZjbI6hHdS5Ri/SrDk9rNFFgiQZ4COuk6Li2HK"),
    # ... where the name ends: a token's name after it stays one (gitleaks' Flutterwave case)
    (f'sshPubKey = "{GENERATED}"', 'flutterwavePubKey_api_token = "FLWPUBK_TEST-44c2f8a1c8fff253fdc788d523aa75c4-X"',
     "FLWPUBK_TEST-44c2f8a1c8fff253fdc788d523aa75c4-X"),
    # a test's value named for its key (a word of the name, then "val")
    ('      APP_KEY: "app-val-updated",', f'      APP_KEY: "{GENERATED}",', GENERATED),
    ('      APP_KEY: "app-val",', '      APP_PASSWORD: "app-val",', "app-val"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)

TEMPLATE = """{
  "resources": [{"properties": {"adminPassword": "[parameters('adminPassword')]",
                                "key": "[listKeys(variables('storageId'), '2019-06-01').keys[0].value]"}}],
  "parameters": {"adminPassword": {"type": "securestring", "defaultValue": "%s"}}
}
"""


def test_a_deployment_templates_expressions_are_kept():
    out = bodies("azuredeploy.json", TEMPLATE % GENERATED)
    assert "[parameters('adminPassword')]" in out and "[listKeys(variables('storageId')" in out, out
    assert GENERATED not in out and REDACTED in out

