/*
 * The redactor: every form of secret it promises to hide in free text (the
 * support bundle, logs), the URL form pyrt stores and prints (marker,
 * status, events), and the text it must leave alone.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/redact.h"

static void redacts(const char *in, const char *want)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", in);
	pyrt_redact(buf);
	cr_assert_str_eq(buf, want, "redact(%s)", in);
	/* Redacting twice changes nothing more: stored text is re-redacted
	 * when it is shown or bundled. */
	pyrt_redact(buf);
	cr_assert_str_eq(buf, want, "redact(redact(%s))", in);
}

static void url_shown(const char *in, const char *want)
{
	char buf[512];
	pyrt_redact_url(in, buf, sizeof buf);
	cr_assert_str_eq(buf, want, "redact_url(%s)", in);
}

Test(redact, url_userinfo)
{
	redacts("https://user:pass@host/x", "https://***@host/x");
	redacts("fetch http://a@h:80/ ok", "fetch http://*@h:80/ ok");
	redacts("url: \"https://bob:hunter2@mirror.example/pbs\"",
		"url: \"https://***@mirror.example/pbs\"");
	redacts("https://a:p@ss@host/x", "https://***@host/x");
	redacts("mail bob@example.com", "mail bob@example.com");
	redacts("git@github.com:org/repo", "git@github.com:org/repo");
}

Test(redact, every_url_query_value)
{
	redacts("https://mirror.example/pbs/x.tar.gz?v=1",
		"https://mirror.example/pbs/x.tar.gz?v=*");
	redacts("GET /x?token=abcdef&page=2", "GET /x?token=***&page=*");
	redacts("https://h/p?SECRET", "https://h/p?***");
	redacts("https://h/p?a=1&SECRET&b=2#frag x=1",
		"https://h/p?a=*&***&b=*#frag x=1");
	redacts("\"https://h/p?token=abc\", next",
		"\"https://h/p?token=***\", next");
	redacts("https://s3.example/o?X-Amz-Algorithm=AWS4&"
		"X-Amz-Signature=deadbeef&X-Amz-Credential=AKID",
		"https://s3.example/o?X-Amz-Algorithm=***&"
		"X-Amz-Signature=***&X-Amz-Credential=***");
	redacts("what? nothing", "what? nothing");
}

Test(redact, key_value_secrets)
{
	redacts("password=hunter2 next", "password=*** next");
	redacts("--password=hunter2", "--password=***");
	redacts("secret=s apikey=k api_key=kk", "secret=* apikey=* api_key=**");
	redacts("FAKE_TOKEN=abc123", "FAKE_TOKEN=***");
	redacts("AWS_SECRET_ACCESS_KEY=xyzxyz", "AWS_SECRET_ACCESS_KEY=***");
	redacts("MY_API_KEY=1234 DB_CREDENTIALS=foo",
		"MY_API_KEY=*** DB_CREDENTIALS=***");
	redacts("{\"password\": \"hunter2\", \"user\": \"bob\"}",
		"{\"password\": \"***\", \"user\": \"bob\"}");
	redacts("secret: s3cr3t", "secret: ***");
}

/* A file whose name reads like a key is a path, not "key: value": the
 * refusal of --box-root /etc/passwd must say what it refused. */
Test(redact, path_named_like_a_key)
{
	redacts("refusing --box-root /etc/passwd: it is not a directory",
		"refusing --box-root /etc/passwd: it is not a directory");
	redacts("cannot read /run/secrets/api_token: Permission denied",
		"cannot read /run/secrets/api_token: Permission denied");
	/* Real pairs stay hidden, with or without a dotted prefix. */
	redacts("db.password: hunter2", "db.password: ***");
	redacts("x password: hunter2", "x password: ***");
	redacts("/etc/passwd password: hunter2",
		"/etc/passwd password: ***");
	redacts("--password=/etc/passwd: x", "--password=*** x");
}

Test(redact, signatures_and_short_names)
{
	redacts("sig=abcdef", "sig=***");
	redacts("X-Amz-Signature=abcdef", "X-Amz-Signature=***");
	redacts("X-Goog-Signature=abcdef", "X-Goog-Signature=***");
	redacts("pass=hunter2 pwd=hunter2 auth=abcdef",
		"pass=*** pwd=*** auth=***");
	redacts("DB_PASS=x1 PROXY_AUTH=x2 --pwd=x3",
		"DB_PASS=** PROXY_AUTH=** --pwd=**");
	redacts("GITHUB_PAT=abcdef AZURE_DEVOPS_PAT=abcdef",
		"GITHUB_PAT=*** AZURE_DEVOPS_PAT=***");
	redacts("passphrase=abcdef", "passphrase=***");
	/* The short names only as whole words. */
	redacts("design=flat compass=north author=bob path=/x",
		"design=flat compass=north author=bob path=/x");
}

Test(redact, schemeless_userinfo)
{
	redacts("proxy alice:hunter2@proxy.example:3128 ok",
		"proxy ***@proxy.example:3128 ok");
	redacts("HTTPS_PROXY=alice:hunter2@10.0.0.1:3128",
		"HTTPS_PROXY=***@10.0.0.1:3128");
	redacts("(alice:p@ss@host)", "(***@host)");
	redacts("see /a:b@c and bob@example.com",
		"see /a:b@c and bob@example.com");
}

Test(redact, password_option_with_a_space)
{
	redacts("pip --password hunter2 --index x",
		"pip --password *** --index x");
	redacts("cmd --token abcdef --api-key 'k k' --pass x y",
		"cmd --token *** --api-key '***' --pass * y");
	/* A file holding a secret is not the secret. */
	redacts("pyrt serve --token-file /run/t", "pyrt serve --token-file /run/t");
	redacts("--mirror https://h/p --cacert ca.pem",
		"--mirror https://h/p --cacert ca.pem");
}

Test(redact, token_prefixes)
{
	redacts("ghp_abcdef0123456789 gho_abc ghs_abc ghu_abc ghr_abc",
		"ghp_*** gho_*** ghs_*** ghu_*** ghr_***");
	redacts("github_pat_11ABCDEF_xyz", "github_pat_***");
	redacts("glpat-abcdef123", "glpat-***");
	redacts("slack xoxb-123-456-abc xoxp-123-abc", "slack xoxb-*** xoxp-***");
	redacts("id AKIAIOSFODNN7EXAMPLE.", "id AKIA***.");
	redacts("id ASIAIOSFODNN7EXAMPLE", "id ASIA***");
	redacts("https://h/ghp_abcdef/simple", "https://h/ghp_***/simple");
	/* Words that merely start alike survive. */
	redacts("AKIAN akiaiosfodnn7example myghp_x ghp_", "AKIAN akiaiosfodnn7example myghp_x ghp_");
}

Test(redact, authorization_headers)
{
	redacts("Authorization: Bearer abc.def.ghi", "Authorization: ***");
	redacts("curl -H 'Authorization: Basic dXNlcjpwYXNz' x",
		"curl -H 'Authorization: ***' x");
	redacts("sent Bearer xyz123 upstream", "sent Bearer *** upstream");
	redacts("authorization=abc", "authorization=***");
}

Test(redact, leaves_ordinary_text_alone)
{
	redacts("platform key: linux-x86_64-gnu", "platform key: linux-x86_64-gnu");
	redacts("PATH=/usr/bin:/bin LANG=C.UTF-8", "PATH=/usr/bin:/bin LANG=C.UTF-8");
	redacts("sha256: 5acfa3e9", "sha256: 5acfa3e9");
	redacts("[   0.123] step download begin: from 127.0.0.1",
		"[   0.123] step download begin: from 127.0.0.1");
	redacts("", "");
	pyrt_redact(NULL);
}

Test(redact, url_as_stored_and_shown)
{
	url_shown("https://alice:hunter2@127.0.0.1:8443/pbs/b/f.tar.gz?token=SECRET",
		  "https://127.0.0.1:8443/pbs/b/f.tar.gz?token=***");
	url_shown("https://h/p/f.tar.gz", "https://h/p/f.tar.gz");
	url_shown("https://h/p/f.tar.gz?a=1&SECRET&b=#frag",
		  "https://h/p/f.tar.gz?a=***&***&b=***");
	url_shown("https://h/p/f.tar.gz?", "https://h/p/f.tar.gz?");
	url_shown("https://a:p@ss@[::1]:80/x?sig=1", "https://[::1]:80/x?sig=***");
	url_shown("https://h/cpython-3.12%2B1.tar.gz",
		  "https://h/cpython-3.12%2B1.tar.gz");
	url_shown("HTTPS://u@H", "HTTPS://H");
	url_shown("https://h/ghp_abcdef/simple", "https://h/ghp_***/simple");
	/* Not a URL: redacted as text (a local archive path stays a path). */
	url_shown("/srv/archives/cpython.tar.gz", "/srv/archives/cpython.tar.gz");
	url_shown("alice:hunter2@host/x", "***@host/x");
	url_shown(NULL, "");
}

Test(redact, url_cut_short_never_shows_a_secret)
{
	const char *url = "https://alice:hunter2@h/p?token=SECRET";
	for (size_t len = 1; len < 40; len++) {
		char buf[40];
		memset(buf, 'x', sizeof buf);
		pyrt_redact_url(url, buf, len);
		cr_assert_lt(strlen(buf), len);
		cr_assert_null(strstr(buf, "hunter"), "%zu: %s", len, buf);
		cr_assert_null(strstr(buf, "SEC"), "%zu: %s", len, buf);
	}
	char keep = 'k';
	pyrt_redact_url(url, &keep, 0);
	cr_assert_eq(keep, 'k');
}

Test(redact, lines_one_by_one)
{
	const char *text = "a token=x1\nb ok\n\nc https://u:p@h/?q=1";
	size_t len = 0;
	char *out = pyrt_redact_lines(text, strlen(text), &len);
	cr_assert_not_null(out);
	cr_assert_str_eq(out, "a token=**\nb ok\n\nc https://***@h/?q=*");
	cr_assert_eq(len, strlen(out));
	free(out);
}

/*
 * Passwords as people write them, unencoded: a '/', '?' or '#' in the
 * password ends the authority as RFC 3986 reads it, before the '@'.  The
 * userinfo still ends at the last '@'; the host after it is kept.
 */
Test(redact, password_with_unencoded_delimiters)
{
	redacts("https://user:pa/ss@host/", "https://***@host/");
	redacts("https://user:p#ss@host", "https://***@host");
	redacts("https://u:p?w@host", "https://***@host");
	redacts("pip https://u:a/b?c#d@h:8443/simple/ ok",
		"pip https://***@h:8443/simple/ ok");
	redacts("\"https://u:p@s/s@host/x\"", "\"https://***@host/x\"");
	url_shown("https://user:pa/ss@host/simple", "https://host/simple");
	url_shown("https://user:p#ss@host", "https://host");
	url_shown("https://u:p?w@host/x?q=1", "https://host/x?q=***");
	/* A bare host keeps an '@' later in the URL as it is. */
	redacts("git+https://github.com/org/repo.git@v1.2",
		"git+https://github.com/org/repo.git@v1.2");
}

/*
 * The public cases: credential URLs in the forms hosted indexes, proxies
 * and mirrors document, each with a password (or token) that must not
 * survive, and the host that must.  Free text and the stored URL form alike.
 */
Test(redact, public_credential_url_table)
{
	static const struct {
		const char *url, *secret, *host;
	} cases[] = {
		{ "https://user:hunter2@pypi.example/simple", "hunter2", "pypi.example" },
		{ "https://__token__:pypi-AgEIcHlwaS5vcmc@upload.pypi.example/legacy/", "pypi-AgEIcHlwaS5vcmc", "upload.pypi.example" },
		{ "https://aws:eyJwYXlsb2FkIjoi@dom-123.d.codeartifact.example/pypi/r/simple/", "eyJwYXlsb2FkIjoi", "dom-123.d.codeartifact.example" },
		{ "https://x-access-token:ghs_abcdef123@github.example/o/r", "ghs_abcdef123", "github.example" },
		{ "https://gitlab-ci-token:glcitok3n@gitlab.example/api/v4/projects/1/packages/pypi/simple", "glcitok3n", "gitlab.example" },
		{ "https://build:AKCp8jQ7zzz@art.example/artifactory/api/pypi/pypi/simple", "AKCp8jQ7zzz", "art.example" },
		{ "https://VssSessionToken:abc123xyz@pkgs.dev.example/org/_packaging/feed/pypi/simple/", "abc123xyz", "pkgs.dev.example" },
		{ "https://tok3nonly@repo.example/simple", "tok3nonly", "repo.example" },
		{ "http://alice:s3cret@127.0.0.1:3128", "s3cret", "127.0.0.1:3128" },
		{ "https://alice:p%40ss%2Fw0rd@mirror.example:8443/pbs", "p%40ss", "mirror.example:8443" },
		{ "https://alice:p@ss@mirror.example/pbs", "ss@", "mirror.example" },
		{ "https://alice:pa/ss@mirror.example/pbs", "pa/ss", "mirror.example" },
		{ "https://alice:pa#ss@mirror.example/pbs", "pa#ss", "mirror.example" },
		{ "https://alice:pa?ss@mirror.example/pbs", "pa?ss", "mirror.example" },
		{ "https://alice:a/b#c?d@mirror.example", "a/b#c", "mirror.example" },
		{ "https://[::1]:8443/pbs?token=s3cr3tq", "s3cr3tq", "[::1]:8443" },
		{ "https://alice:w0rd@[::1]:8443/pbs", "w0rd", "[::1]:8443" },
		{ "https://host.example/pbs?X-Amz-Signature=deadbeef1", "deadbeef1", "host.example" },
		{ "https://host.example/ghp_abcdef0123456789/simple", "abcdef0123", "host.example" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[512], url[512];
		snprintf(text, sizeof text, "Looking in indexes: %s done",
			 cases[i].url);
		pyrt_redact(text);
		pyrt_redact_url(cases[i].url, url, sizeof url);
		cr_assert_null(strstr(text, cases[i].secret), "%s -> %s",
			       cases[i].url, text);
		cr_assert_null(strstr(url, cases[i].secret), "%s -> %s",
			       cases[i].url, url);
		cr_assert_not_null(strstr(text, cases[i].host), "%s -> %s",
				   cases[i].url, text);
		cr_assert_not_null(strstr(url, cases[i].host), "%s -> %s",
				   cases[i].url, url);
		cr_assert_not_null(strstr(text, " done"), "%s -> %s",
				   cases[i].url, text);
	}
}

static void known_hidden(const char *url, const char *in, const char *want)
{
	const char *urls[] = { url };
	char *out = pyrt_redact_known_urls(in, urls, 1);
	cr_assert_not_null(out);
	cr_assert_str_eq(out, want, "known(%s, %s)", url, in);
	free(out);
}

/*
 * A token in an index URL's path (https://host/simple/TOKEN/,
 * https://host/TOKEN/simple): every form pip prints the configured URL in
 * keeps the host and hides the rest.
 */
Test(redact, known_url_path_tokens)
{
	const char *u = "https://alice:pw@idx.example:8443/simple/T0KEN/";
	known_hidden(u, "Looking in indexes: https://alice:****@idx.example:8443/simple/T0KEN/",
		     "Looking in indexes: https://idx.example:8443/***/");
	known_hidden(u, "GET https://idx.example:8443/simple/T0KEN/python-docx/ 404",
		     "GET https://idx.example:8443/***/python-docx/ 404");
	known_hidden(u, "x https://alice:pw@idx.example:8443/simple/T0KEN",
		     "x https://idx.example:8443/***");
	known_hidden(u, "HTTPSConnectionPool(host='idx.example', port=8443): Max "
		     "retries exceeded with url: /simple/T0KEN/python-docx/ (Caused",
		     "HTTPSConnectionPool(host='idx.example', port=8443): Max "
		     "retries exceeded with url: /***/python-docx/ (Caused");
	/* Cut short at the end of a line, the token's start is hidden too. */
	known_hidden(u, "see idx.example:8443/simple/T0", "see idx.example:8443/***");
	/* Token first, and percent-encoded as configured but printed plain. */
	known_hidden("https://h.example/T%2BK/simple",
		     "Looking in indexes: https://h.example/T+K/simple",
		     "Looking in indexes: https://h.example/***");
	known_hidden("https://h.example/TOK/simple?k=v",
		     "a https://h.example/TOK/simple?k=v b /TOK/simple/x c",
		     "a https://h.example/*** b /***/x c");
	/* Other hosts, other paths and ordinary words stay. */
	known_hidden(u, "https://other.example/simple/x/ and /usr/simple",
		     "https://other.example/simple/x/ and /usr/simple");
	known_hidden(u, "Collecting python-docx", "Collecting python-docx");
	/* Nothing to hide: no path, or not a URL. */
	known_hidden("https://h.example/", "https://h.example/x", "https://h.example/x");
	known_hidden("/srv/wheels", "/srv/wheels/a.whl", "/srv/wheels/a.whl");
	char *out = pyrt_redact_known_urls("plain", NULL, 0);
	cr_assert_str_eq(out, "plain");
	free(out);
}

/* Issue 26, door 7: what still showed. */
Test(redact, netrc_password_lines)
{
	redacts("machine mirror.example login bob password hunter2",
		"machine mirror.example login bob password ***");
	redacts("machine h login u passwd s3cr3t port 1",
		"machine h login u passwd *** port 1");
	redacts("PASSWORD hunter2", "PASSWORD ***");
	/* not a word of its own: nothing follows that is a secret */
	redacts("the passwords file", "the passwords file");
}

Test(redact, value_after_a_space)
{
	/* an environment line: the value is the rest of it */
	redacts("PYRT_TOKEN=abc def ghi", "PYRT_TOKEN=***");
	redacts("MY_PASSWORD=hunter2 next", "MY_PASSWORD=***");
	redacts("password: two words here", "password: ***");
	redacts("\"password\": \"two words\", \"user\": \"bob\"",
		"\"password\": \"***\", \"user\": \"bob\"");
}

Test(redact, cookie_headers)
{
	redacts("Cookie: session=abc123; theme=dark", "Cookie: ***");
	redacts("> Set-Cookie: sid=xyz; Path=/; HttpOnly", "> Set-Cookie: ***");
	redacts("cookie=abc123", "cookie=***");
}

Test(redact, proxy_password_with_a_hash)
{
	redacts("HTTP_PROXY=http://u:pa#ss@127.0.0.1:9",
		"HTTP_PROXY=http://***@127.0.0.1:9");
	url_shown("http://u:pa#ss@127.0.0.1:9", "http://127.0.0.1:9");
	url_shown("http://u:pa/ss@127.0.0.1:9/", "http://127.0.0.1:9/");
}

Test(redact, unrecognised_token_in_a_url_path)
{
	url_shown("https://mirror.example/t/0a1B2c3D4e5F6g7H8i/pbs/x.tar.gz",
		  "https://mirror.example/t/***/pbs/x.tar.gz");
	/* names, versions and file names stay */
	url_shown("https://mirror.example/pbs/20240814/cpython-3.11.9+20240814-x86_64-unknown-linux-gnu-install_only.tar.gz",
		  "https://mirror.example/pbs/20240814/cpython-3.11.9+20240814-x86_64-unknown-linux-gnu-install_only.tar.gz");
	url_shown("https://pypi.example/simple/python-docx/",
		  "https://pypi.example/simple/python-docx/");
	/* the same in free text: a log line, a curl error */
	redacts("GET https://m.example/t/0a1B2c3D4e5F6g7H8i/x.tar.gz failed",
		"GET https://m.example/t/***/x.tar.gz failed");
	redacts("fetch https://u:p@m.example/0a1B2c3D4e5F6g7H8i?x=1 ok",
		"fetch https://***@m.example/***?x=* ok");
}
