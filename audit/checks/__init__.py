"""One module per check; each exposes ``run(ctx, out)`` appending findings to ``out``."""
