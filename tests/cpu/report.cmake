# Renderings of analysis results (owner: analyze).
