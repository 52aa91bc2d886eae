"""The audit console: web pages over a memguard state, scoped to the signed-in principal.

- :mod:`.graph` the lineage graph of a fact (nodes, links; DOT and Mermaid renderings);
- :mod:`.svg` its server-rendered SVG (layered layout, coloured by trust, quarantine marked);
- :mod:`.app` the Starlette application (pages, sign-in, CSRF, security headers);
- :mod:`.cli` ``memguard console``: the local console on a state folder (127.0.0.1 only).

Importing this package imports neither Starlette nor Jinja2; :mod:`.app` does.
"""
