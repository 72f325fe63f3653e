"""The ufbx binding's crash, reproduced: why footfall.fbx reads in a child process.

ufbx 0.0.5's wrappers are cached by element without a reference: once the Python objects of
the scene's nodes have been freed, a skin cluster's ``bone_node`` hands back a freed object and
the interpreter dies (SIGSEGV) on a plain script like this one. ``tests/test_fbx_malformed.py``
runs it (as ``python -m ufbx_crash MODE FILE OUT [TAKE]``, the child reader's arguments) to see
the crash happen and to see footfall turn it into an FBXError. footfall's own child keeps every
wrapper alive (``footfall.fbx.scene_graph.HOLD``).
"""

import sys

import ufbx

scene = ufbx.load_file(sys.argv[2])
for _ in range(50):  # once is enough here; repeated so that it does not depend on luck
    for node in scene.nodes:  # each node's wrapper is freed at the next step
        name = node.name
    print([cluster.bone_node.name for cluster in scene.skin_clusters])
