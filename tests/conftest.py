"""Suite-wide guards: the tests never touch the network.

Set before any test module imports transformers/datasets/huggingface_hub, which read these
variables at import time.
"""

import os

for _var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_var] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
