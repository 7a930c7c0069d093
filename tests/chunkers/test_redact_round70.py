"""Seventieth round: Security Shepherd, hackazon, InsecureBankv2, vulnerable-node, DSVW and Serverless Goat read held
out after the sixty-ninth round (figures: benchmarks/secrets_recall.md, round 70). Values made up where a secret is
meant."""

from tests.chunkers.redact_asserts import bodies, round_tests


KEPT = [
    # a message bundle's labels and messages about a secret (Security Shepherd's i18n/*.properties)
    "form.password = Password:",
    "loginForm.password = Account Password:",
    "generic.text.confirmPasswd = Confirm Password",
    "button.resetPassword = Reset My Password",
    "generic.text.setup.token.title = Configuration Authentication Token",
    "challenge.form.forgotPassword = Forgotten Password?",
    "response.incorrectCreds = Incorrect Pin Number",
    "reset.password = Password change request success.",
    "generic.text.password = Mot de Passe",
    "generic.text.confirmPasswd = Confirmer le Mot de Passe",
    "getStarted.text.info.changePassword = Votre mot de passe est temporaire. Changez-le maintenant !",
    r"generic.text.password = \u5BC6\u7801",
    # Android's string resource of a label
    '<string name="loginscreen_password">Password:</string>',
    # an algorithm's name under a key's setting (`alg`)
    "KEY_ALG=RSA",
    # a placeholder between underscores, lower case or three of them
    '<Connector keystorePass="___password___" keyAlias="tomcat" />',
    "password = ___DB_PASSWORD___",
    # a URL after sqlmap's `-u`: its scheme is no user
    'sqlmap --batch -u "http://127.0.0.1:3000/login/auth" --data "username=&password="',
    # a version's wildcard under a package's name (composer.lock)
    '"ircmaxell/password-compat": "1.0.*",',
    # a validator's rule (jQuery Validate in a PHP view)
    '        password: "required",',
    # a server page's code as the value
    '<button data-token="<?php echo $this->getToken(\'checkout_step\'); ?>">',
    '<input type="hidden" name="token" value="<%= csrf_token %>">',
    # PHP's interpolation after words
    '$this->access_token_key = "auth_{$config}_twitter_token";',
    # a regular expression's group read as a URL's user
    "preg_match('#^mongodb://(([^:]+):?(.*)(?=@))?@?([^/]*)(.*)$#', $server, $matches);",
    # a PHP class by its namespace
    "'password' => 'App\\Rules\\Password',",
]


REDACTED_CASES = [
    # a phrase that names no secret, lower case, or a password of letters and digits: values, as before
    ("password = super secret passphrase", "super secret passphrase"),
    ("form.password = Sn0wfall2024", "Sn0wfall2024"),
    # a label's colon after a value of digits and signs is no label
    ("password: 'Sn0w:fall'", "Sn0w:fall"),
    # a real value after `-p`, `-u`
    ("mysql -u root -pSn0wfall2024 db", "Sn0wfall2024"),
    ("curl -u admin:Sn0wfall2024 https://x", "Sn0wfall2024"),
    # a value after words and a reference that is not a template's (no `${{`)
    ("CACHE_KEY = 'maven-output-Zq8vR2mXk9PLw4tY'", "Zq8vR2mXk9PLw4tY"),
    # a user and a password in prose (InsecureBankv2's README)
    ("4) Use the credentials dinesh/Dinesh@123$ and start using the application", "Dinesh@123$"),
    # an escaped value in Latin letters is no text of another script
    (r"password = \u0053\u006e\u006f\u0077", r"\u0053\u006e\u006f\u0077"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_workflow_cache_key_after_words_is_kept():
    body = bodies("release.yml", "jobs:\n  build:\n    steps:\n      - uses: actions/cache@v4\n        with:\n"
                  "          key: maven-output-${{ hashFiles('target/**') }}\n"
                  "          path: ~/.m2\n")
    assert "maven-output-${{ hashFiles('target/**') }}" in body


def test_an_android_preference_s_key_is_judged_by_its_look():
    body = bodies("preferences.xml", '<PreferenceScreen xmlns:android="http://schemas.android.com/apk/res/android">\n'
                  '  <EditTextPreference android:key="server_preference" android:title="Server" />\n'
                  '  <EditTextPreference android:key="Zq8vR2mXk9PLw4tYb7NcQe3s" android:title="X" />\n'
                  '</PreferenceScreen>\n')
    assert "server_preference" in body
    assert "Zq8vR2mXk9PLw4tYb7NcQe3s" not in body


def test_a_package_folder_named_token_and_a_service_s_class_are_no_secrets():
    body = bodies("package.xml", '<package>\n <contents>\n  <dir name="Token">\n'
                  '   <file name="Stream.php" role="php">\n'
                  '    <tasks:replace from="@package_version@" to="version" type="package-info" />\n'
                  '   </file>\n  </dir>\n </contents>\n</package>\n')
    assert "@package_version@" in body and "package-info" in body and "[REDACTED]" not in body
    body = bodies("services.xml", '<container>\n <services>\n'
                  '  <service id="form.type.password" class="Symfony\\Component\\Form\\Type\\PasswordType" />\n'
                  '  <service id="app.password" class="App\\Secret" value="Sn0wfall2024" />\n'
                  ' </services>\n</container>\n')
    assert "PasswordType" in body and "App\\Secret" in body
    assert "Sn0wfall2024" not in body


def test_a_mysql_prompt_in_a_flattened_value_is_no_password():
    body = bodies("pdo.xml", "<document><pre>$ mysql -u root -p\nEnter password: *******\nWelcome</pre>"
                  "<pre>$ mysql -u root -pSn0wfall2024 db</pre></document>\n")
    assert "Enter password" in body and "Sn0wfall2024" not in body


def test_an_android_string_resource_s_label_is_kept_in_the_settings_too():
    body = bodies("strings.xml", '<resources>\n  <string name="loginscreen_password">Password:</string>\n'
                  '  <string name="db_password">Sn0wfall2024</string>\n</resources>\n')
    assert "Password:" in body and "Sn0wfall2024" not in body
