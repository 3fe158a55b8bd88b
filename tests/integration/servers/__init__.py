"""Real servers on 127.0.0.1 for the integration tests: HTTP scenarios, Gemini (jetforce and a
scripted TLS server), FTP (pyftpdlib). Each binds an ephemeral port and is stopped by its fixture."""
