import LibHTTPServer

/// The HTML of GET /device and of the answers to its form: where a person
/// types the code a device shows, their user name and password, and
/// approves (or denies) the device's sign-in. No script; its one style
/// sheet carries a fresh nonce, and the Content-Security-Policy allows
/// nothing else (`default-src 'none'`) and posts only to this server.
enum DeviceVerificationPage {
    /// What the page says above the form.
    enum Notice {
        case none
        case approved(username: String)
        case denied
        case problem(String)
    }

    /// The page: the notice, then the form (left out once the sign-in is decided).
    static func response(status: Int, notice: Notice = .none, userCode: String = "", username: String = "") -> HTTPResponse {
        let nonce = Crypto.randomHex(bytes: 16)
        var body = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Sign in a device — lib</title>
            <style nonce="\(nonce)">
            body { font-family: sans-serif; max-width: 28em; margin: 2em auto; padding: 0 1em; }
            label { display: block; margin-top: 1em; }
            input { font-size: 1.1em; width: 100%; box-sizing: border-box; }
            #user_code { font-family: monospace; letter-spacing: 0.1em; text-transform: uppercase; }
            .buttons { margin-top: 1.5em; display: flex; gap: 1em; }
            .notice { padding: 0.8em; border-radius: 4px; background: #eef; }
            .problem { background: #fee; }
            </style>
            </head>
            <body>
            <h1>Sign in a device</h1>

            """
        switch notice {
        case .none:
            body += "<p>Enter the code the device shows, and your user name and password, to sign it in as you.</p>\n"
        case .approved(let username):
            body += "<p class=\"notice\" id=\"result\" data-result=\"approved\">Approved: the device is now signed in as \(escaped(username)). You may close this page.</p>\n"
        case .denied:
            body += "<p class=\"notice\" id=\"result\" data-result=\"denied\">Denied: the device is not signed in.</p>\n"
        case .problem(let text):
            body += "<p class=\"notice problem\" id=\"result\" data-result=\"problem\">\(escaped(text))</p>\n"
        }
        if case .none = notice { body += form(userCode: userCode, username: username) }
        if case .problem = notice { body += form(userCode: userCode, username: username) }
        body += "</body>\n</html>\n"
        let headers = HTTPHeaders([
            ("Content-Type", "text/html; charset=utf-8"),
            ("Content-Security-Policy", "default-src 'none'; style-src 'nonce-\(nonce)'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
            ("X-Frame-Options", "DENY"),
            // Not no-referrer: under it browsers send `Origin: null` with the
            // form's POST, which the same-origin check must refuse.
            ("Referrer-Policy", "same-origin"),
            ("X-Content-Type-Options", "nosniff"),
            ("Cache-Control", "no-store"),
        ])
        return HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }

    private static func form(userCode: String, username: String) -> String {
        """
        <form method="post" action="/device">
        <label for="user_code">Code</label>
        <input id="user_code" name="user_code" value="\(escaped(userCode))" required autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="XXXX-XXXX">
        <label for="username">User name</label>
        <input id="username" name="username" value="\(escaped(username))" autocomplete="username">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password">
        <div class="buttons">
        <button id="approve" type="submit" name="action" value="approve">Approve</button>
        <button id="deny" type="submit" name="action" value="deny" formnovalidate>Deny</button>
        </div>
        </form>
        <p>Only approve a code you asked for yourself, on a device you are in front of.</p>

        """
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
