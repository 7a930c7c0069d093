"""Sixty-sixth round: what DVNA, DVWS-Node and CfnGoat, read held out after the sixty-fifth round, and DVWA's PHP,
read by the sixty-fifth's wider reading, showed (figures: benchmarks/secrets_recall.md, round 66). Values made up
where a secret is meant."""

import pytest

from chunkers import chunk_file_result
from chunkers.redact import redact_text

TEMPLATE = """AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  DBPassword:
    Description: The database admin account password
    Type: String
    NoEcho: true
    MinLength: 8
    MaxLength: 41
    AllowedPattern: "[a-zA-Z0-9]*"
    Default: Sn0wfall2024x
"""


def _body(name: str, text: str) -> str:
    return "\n".join(piece.body for piece in chunk_file_result(name, text.encode()).pieces)


def test_a_cloudformation_parameter_s_attributes_are_kept_and_its_default_redacted():
    body = _body("cfn/template.yaml", TEMPLATE)
    for kept in ("DBPassword:Type = String", "DBPassword:MaxLength = 41", "DBPassword:NoEcho = true",
                 "DBPassword:AllowedPattern = [a-zA-Z0-9]*"):
        assert kept in body, body
    assert "Sn0wfall2024x" not in body and "DBPassword:Default = [REDACTED]" in body, body


def test_a_schema_word_is_judged_by_its_value_under_a_section_of_secrets():
    body = _body("config/secrets.yaml", "secrets:\n  db:\n    type: string\n    format: Zq8fK2pQx7Lm9NbVw3RtYu5\n")
    assert "type = string" in body, body
    assert "Zq8fK2pQx7Lm9NbVw3RtYu5" not in body, body


@pytest.mark.parametrize("line", [
    # an icon font's code point under a name holding "secret" (DVNA's Font Awesome)
    '@fa-var-user-secret: "\\f21b";',
    '$fa-var-user-secret: "\\f21b";',
    # PHP's complex interpolation cut at a quote inside it (DVWA)
    """return "<input type='hidden' name='user_token' value='{$_SESSION[ 'session_token' ]}' />";""",
    # a CloudFormation parameter's value from the environment, and one under no secret's name
    "aws cloudformation deploy --parameters ParameterKey=DBPassword,ParameterValue=${DB_PASSWORD}",
    "aws cloudformation deploy --parameters ParameterKey=Env,ParameterValue=production",
])
def test_a_look_alike_is_kept(line):
    assert redact_text(line) == line


@pytest.mark.parametrize("line, secret", [
    # CfnGoat's README: a parameter's name and value as two fields of one argument
    ("aws cloudformation create-stack --stack-name goat --parameters ParameterKey=Password,ParameterValue=Sn0wfall24"
     " --capabilities CAPABILITY_IAM", "Sn0wfall24"),
    ("--parameters ParameterKey=ApiToken,ParameterValue=Zq8fK2pQx7Lm9NbV ParameterKey=Env,ParameterValue=prod",
     "Zq8fK2pQx7Lm9NbV"),
    # a backslash before a value that is not hex alone, a brace that opens no interpolation
    ('password: "\\Zq8fK2pQx7"', "Zq8fK2pQx7"),
    ('password = "{Sn0wfall24$"', "Sn0wfall24"),
])
def test_a_secret_is_redacted(line, secret):
    out = redact_text(line)
    assert secret not in out and "[REDACTED]" in out, out
