"""One reading of each text, made once by a real parser (spaCy), and what the guards read
from it: values, names, owners, polarity, roles (``facts``), the differences between two
texts (``difference``) and the bindings a written text must keep (``bindings``)."""
