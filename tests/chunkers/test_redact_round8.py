"""Eighth round (issue 33): trivy's and ripsecrets' misses (development corpora now), fixed by general rules. Each fix
has a case that fails without it and a look-alike beside it. Values are made up here."""
from tests.chunkers.redact_asserts import round_tests

CASK = "Q3xk9Vb2Lm8Np4Rt7Ws1Yz6Ac5De0Fg3Hj2Kl9Mn8Pq7Rs6Tu5Vw" + "JQQJ99BDACYeBjFXJ3w3AAAAACOGd7Kq"
GH_PAT = "github_pat_11AZQ5KVR0n8tAq8ZrT2vL_" + "Zq5kVrX1n8tAq8ZrT2vLx9Wm4Kn7SyBqZq5kVrX1n8tAq8ZrT2vLx9Wm4Kn"

KEPT = [
    # Azure's structured key: the signature with a version the form has not, too short a random part
    CASK.replace("JQQJ99", "JQQJ9Z"),
    CASK[1:],
    # `ek_`: a hex word with no digit, a longer word ending in `ek_`, too short
    "ek_deadbeefdeadbeefdeadbeefdeadbeef",
    "seek_4f1c2a3b9d8e4c7ba6f50e1d2c3b4a59",
    "ek_4f1c2a3b9d8e",
    # Square: longer than any secret of the form
    "sq0csp-" + "Zq5kVrX1n8tAq8ZrT2vLx9Wm4Kn7SyBq" * 2,
    # Slack with short parts: a placeholder tail, a tail of letters only, too few parts
    "xoxp-523423-234243-234233-xxxxxxxxxxxxxxxx",
    "xoxp-523423-234243-234233-abcdefabcdefabcdef",
    "xoxp-5234-e039d02840a0b9379c",
    # a GitHub token's prefix glued to a word, not in the token's form: an identifier
    "ourgithub_pat_token_environment_variable_name",
    # an XML element with blanks: a value naming a key, a reference
    "<password>  plainSecret  </password>",
    "<password>  ${env.MAVEN_REPO_PASS}  </password>",
    # Maven: a server's encrypted password (useless without the master), a master that is a placeholder or a word
    "<password>{COQLCE6DU6GtcS5PZq5kVrX1n8=}</password>",
    "<passphrase>{jSMOWnoPFgsHVpMvz5VrIt5kRbzGpI8u+9EF1iFQyJQ=}</passphrase>",
    "<master>{xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx}</master>",
    "<master>{master}</master>",
    "<master>true</master>",
    # `"key": …` in JSON: a label, a dotted name, a digest, a uuid, a slug, a short value
    '"key": "MyApp.Settings.DisplayTitleLabel"',
    '"key": "d41d8cd98f00b204e9800998ecf8427e"',
    '"key": "4f1c2a3b-9d8e-4c7b-a6f5-0e1d2c3b4a59"',
    '"key": "user_profile_settings_v2"',
    '{"key": "Zq5kVrX1n8tA", "value": 1}',
    # "passphrase" is a secret's word now: a prompt, code, a value naming a key, none
    'passphrase = "Enter your passphrase"',
    "self.passphrase = passphrase",
    'passphrase = getpass("Passphrase: ")',
    "<passphrase>  gpgPassphrase  </passphrase>",
    "passphrase = None",
]

REDACTED_CASES = [
    # (text, the secret that must go)
    (CASK, CASK),
    (f'AZURE_AI_KEY="{CASK}"', CASK),
    ("ek_4f1c2a3b9d8e4c7ba6f50e1d2c3b4a59", "ek_4f1c2a3b9d8e4c7ba6f50e1d2c3b4a59"),
    ("sq0csp-Zq5kVrX1n8tAq8ZrT2vL-x9Wm4Kn7SyBq_Zq5kVrX1n8tAq8Z", "Zq5kVrX1n8tAq8ZrT2vL-x9Wm4Kn7SyBq_Zq5kVrX1n8tAq8Z"),
    ("SLACK=xoxp-523423-234243-234233-e039d02840a0b9379c", "e039d02840a0b9379c"),
    (f"ours{GH_PAT}", GH_PAT),
    ("<password>  Zq5kVrX1n8tAq8ZrT2vL  </password>", "Zq5kVrX1n8tAq8ZrT2vL"),
    ('<string name="api_token">  Z3k9Qm2Lx8Vb4Nc7Tp1Rw6  </string>', "Z3k9Qm2Lx8Vb4Nc7Tp1Rw6"),
    ("<master>{vki9JTFmEYlTlCZixjz0jr5QxEXlZfWga65QZhsA9yV0uRfo2iNyfgZDnWpuYqNi\\}</master>",
     "vki9JTFmEYlTlCZixjz0jr5QxEXlZfWga65QZhsA9yV0uRfo2iNyfgZDnWpuYqNi"),
    ('"key": "2Tm6cdsRVBTL9hRCmR6MRDTpMLFS4I"', "2Tm6cdsRVBTL9hRCmR6MRDTpMLFS4I"),
    ("{'key': 'Zq5kVrX1n8tAq8ZrT2vLx9Wm4Kn7'}", "Zq5kVrX1n8tAq8ZrT2vLx9Wm4Kn7"),
    ("<passphrase>Zq5kVrX1n8tAq8ZrT2vL</passphrase>", "Zq5kVrX1n8tAq8ZrT2vL"),
    ('passphrase = "Zq5kVrX1n8tAq8ZrT2vL"', "Zq5kVrX1n8tAq8ZrT2vL"),
    ("gpg_passphrase: Zq5kVrX1n8tAq8ZrT2vL", "Zq5kVrX1n8tAq8ZrT2vL"),
    ("PASSPHRASE=Zq5kVrX1n8tAq8ZrT2vL", "Zq5kVrX1n8tAq8ZrT2vL"),
]


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
