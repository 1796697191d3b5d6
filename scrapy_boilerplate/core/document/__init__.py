"""The document: parse once, read the elements and their cues, skip hidden content, walk the tree once into a Page."""
