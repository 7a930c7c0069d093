"""Seventy-third round: gogs (real code), Damn Vulnerable GraphQL Application, Tiredful API, InsecureShop, OVAA,
WebGoat.NET, JavaVulnerableLab and DVJA read held out after the seventy-second round (figures:
benchmarks/secrets_recall.md, round 73). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import bodies, round_tests


KEPT = [
    # a translation's text in a script beyond Latin (gogs' conf/locale/*.ini, Juice Shop's i18n/*.json)
    "password=密码",
    "password_too_short=密码长度不能少于 6 位！",
    '  "password": "パスワード",',
    '"LABEL_PASSWORD": "Пароль",',
    '"LABEL_TWO_FACTOR_AUTH_TOKEN": "2단계 인증 토큰",',
    '"INITIAL_TOKEN_TOOLTIP": "输入的令牌需要有6位数字。",',
    'access_token_tips=个人访问令牌可以用作用户名或密码。建议使用 "x-access-token" 作为 Git 应用程序的用户名。',
    # a label in sentence case naming the secret (gogs' locale_en-US.ini), in other languages too
    "new_password = New password",
    "forget_password = Forgot password?",
    "config.auth.reset_password_code_lives = Reset password code lives",
    "retype_new_password=Re-inserisci la password",
    "reset_password=Resetați-vă parola",
    "manage_access_token=Hantera personliga åtkomst-tokens",
    # how long a reset code lives, in minutes
    "RESET_PASSWORD_CODE_LIVES=10",
    # an Android resource's reference (InsecureShop's layout)
    'app:passwordToggleTint="@android:color/black">',
    '    android:hint="@string/password_hint"',
    # a regular expression's syntax between a label's quotes (DVGA's core/models.py)
    """clean = re.sub(r'(?<=password:")(.*)(?=")', "*****", clean)""",
    # a label's string closed before code (JavaVulnerableLab's ForgotPassword.jsp)
    """out.print("Hello "+rs.getString("username")+", <b> Your Password is: "+rs.getString("password"));""",
    # a connection string's key before the variable holding its value (WebGoat.NET)
    'string connectionstring = "Data Source=" + GoatDBFile;',
    # a cmdlet's name after ConvertTo-SecureString in a list of them (highlight.js' PowerShell keywords)
    "ConvertTo-SecureString Copy-Item Copy-ItemProperty Export-Alias",
    # a documented placeholder (hackazon's SignIn.php), a credentials table's user name
    "$this->backOfficeCredentials['yourUserName'] = 'yourPassWord';",
    'credentials["username"] = "admin"',
]


REDACTED_CASES = [
    # a credentials table's entry by a user's name (InsecureShop's Util.kt)
    ('        userCreds["shopuser"] = "!ns3csh0p"', "!ns3csh0p"),
    ('userPasswords["alice"] = "Zq8fK2pLm9xT"', "Zq8fK2pLm9xT"),
    # one word under a password's name stays a value, in any Latin language (the eighteenth round)
    ('"password": "Passord",', "Passord"),
    ("password=Hasło", "Hasło"),
    # a phrase in lower case, with digits, or naming no secret
    ("password = my secret pw 42", "my secret pw 42"),
    ("password = correct horse battery staple", "correct horse battery staple"),
    # a word of another script with digits glued to it is a password in that script
    ('password = "Пароль2024"', "Пароль2024"),
    # a password quoted inside a translation's text (Juice Shop's challenge hint)
    ('"Change the Password.": "パスワードを<i>slurmCl4ssic</i>に変更します。",', "slurmCl4ssic"),
    # a value after a label's quote, and a word after ConvertTo-SecureString that is no cmdlet's
    ('The password is: "hunter22"', "hunter22"),
    ("ConvertTo-SecureString Hunter-Two -AsPlainText -Force", "Hunter-Two"),
    # a connection string's value inside the literal
    ('string cs = "Password=Zq8fK2pLm9xT;Data Source=" + file;', "Zq8fK2pLm9xT"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_dotnet_documentation_file_is_text_about_its_members():
    body = bodies("lib/System.Data.SQLite.XML", '<?xml version="1.0"?>\n<doc>\n <assembly><name>X</name></assembly>\n'
                  ' <members>\n  <member name="P:System.Data.SQLite.SQLiteConnection.ConnectionString">\n'
                  '   <remarks><list><listheader><term>Parameter</term></listheader>\n'
                  '    <item><description>Version</description></item></list></remarks>\n  </member>\n'
                  '  <member name="M:Log.Util.EmptyDictionary.Add(System.Object)">\n'
                  '   <param name="key">The <see cref="T:System.Object" /> to use as the key</param>\n  </member>\n'
                  ' </members>\n</doc>\n')
    assert "Parameter" in body and "Version" in body and "T:System.Object" in body
    assert "[REDACTED]" not in body
    # elsewhere an element named like a secret still holds one
    body = bodies("app.xml", '<config>\n <setting name="ConnectionString"><value>Server=db;Password=Zq8fK2pLm9xT'
                  '</value></setting>\n</config>\n')
    assert "Zq8fK2pLm9xT" not in body


def test_an_android_layout_s_reference_and_a_struts_action_are_no_secrets():
    body = bodies("res/layout/activity_login.xml",
                  '<LinearLayout xmlns:app="http://schemas.android.com/apk/res-auto">\n'
                  '  <TextInputLayout app:passwordToggleEnabled="true" app:passwordToggleTint="@android:color/black"'
                  ' />\n</LinearLayout>\n')
    assert "@android:color/black" in body
    body = bodies("struts.xml", '<struts>\n <package name="default">\n'
                  '  <action name="resetPasswordExecute" class="com.example.ResetPassword">\n'
                  '   <result type="redirectAction"><param name="actionName">login</param></result>\n'
                  '  </action>\n </package>\n</struts>\n')
    assert ">login<" in body or "= login" in body
    assert "[REDACTED]" not in body
