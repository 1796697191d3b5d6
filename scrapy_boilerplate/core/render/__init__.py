"""The kept content as text, Markdown and HTML: units, tables, code blocks, images, URLs."""
