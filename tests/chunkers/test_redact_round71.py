"""Seventy-first round: Apache Shiro (real code), mutillidae, DIVA Android and VyAPI read held out after the
seventieth round (figures: benchmarks/secrets_recall.md, round 71). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import bodies, round_tests


KEPT = [
    # a call's name after a session cookie's name (Shiro's WebContainerIT)
    "            jsessionid = getSessionCookie(loginPage);",
    # a Java class by its package (Shiro's IniSecurityManagerFactoryTest)
    '        main.put("credentialsMatcher", "org.apache.shiro.authc.credential.Sha256CredentialsMatcher");',
    # an attribute's closing quote after a label's colon and a blank (Shiro's loginform.xhtml)
    '            Password: <h:inputText id="password" title="Password: " required="true"/>',
    # an expression indexing a name (Shiro's filter chain tests)
    '        def token = "foo[bar, baz]"',
    "        def token = 'roles[\"guest, admin\"]'",
    # an XML Schema type (mutillidae's SOAP services)
    "        'password' => 'xsd:string',",
    "        'client_secret' => 'xsd:string',",
    # PHP's members joined by a colon (nusoap)
    '            $this->setCurlOption(CURLOPT_USERPWD, "$this->username:$this->password");',
    # a Digest header's parameter by name, its value concatenated (nusoap)
    "        $this->setHeader('Authorization', 'Digest username=\"' . $username . '\", realm=\"' . $realm . '\"');",
    # the characters a password is drawn from, under a name saying so (mutillidae's password generator)
    '        var lPasswordCharset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";',
]


REDACTED_CASES = [
    ("Cookie: JSESSIONID=8F3A9C2B1D4E5F60718293A4B5C6D7E8", "8F3A9C2B1D4E5F60718293A4B5C6D7E8"),
    ("jsessionid = 8F3A9C2B1D4E5F60718293A4B5C6D7E8;", "8F3A9C2B1D4E5F60718293A4B5C6D7E8"),
    ("Authorization: Digest Zq8vR2mXk9PLw4tYb7NcQe3s", "Zq8vR2mXk9PLw4tYb7NcQe3s"),
    ('$this->setCurlOption(CURLOPT_USERPWD, "admin:Sn0wfall2024");', "Sn0wfall2024"),
    # a class's name in camel case, no package (the open decision), and a password that happens to hold a dot
    ("password = 'org.Sn0wfall2024'", "Sn0wfall2024"),
    # an alphabet under a secret's own name is a (test) secret: testpatterndev's planted Auth0 secret
    ('auth0_secret="zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA9876543210_-"',
     "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA9876543210_-"),
    # a generated class's name after dotted words (a Doppler token), an encrypted value's wrapper around a generated
    # string: neither a Java class nor an indexed name
    ("token = 'dp.pt.GnUaQXtT9Fi2luokVezIZ3MGzgSUKYjqCk4efeKZuc7'", "GnUaQXtT9Fi2luokVezIZ3MGzgSUKYjqCk4efeKZuc7"),
    # a dotted password whose last part is capitalised with a digit inside a word (round 63's test)
    ("password = 'hunter.two.Wint3rIsHere'", "Wint3rIsHere"),
    ("secret = 'ENC[RSA,tUf83Ex0oSbDGa8vaU1hGqesODG9J4j40EgLClQYrwNT]'", "tUf83Ex0oSbDGa8vaU1hGqesODG9J4j40EgLClQYrwNT"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_user_s_name_under_a_section_of_secrets_is_kept_and_the_password_redacted():
    # StackHawk's scan login (mutillidae's .github/workflows/config/stackhawk.yml)
    body = bodies("stackhawk.yml", "app:\n  authentication:\n    usernamePassword:\n"
                  '      scanUsername: "stackhawk"\n      scanPassword: "Sn0wfall2024"\n')
    assert "stackhawk" in body and "Sn0wfall2024" not in body
