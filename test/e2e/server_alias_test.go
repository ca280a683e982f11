package e2e

import "office/engine"

var engineCheckPeer = engine.CheckPeer

type peerError = engine.PeerError
