"""Real, published tokenizers: OpenAI's ranks and model names, Mistral's Tekken, chat markup,
and the registry of what this machine can offer (``registry``). It may import the engine
and the file formats (``bpeviz.formats``), nothing above them (``tests/test_layers.py``).
"""
