package e2e

import "office/server"

var engineCheckPeer = server.CheckPeer

type peerError = server.PeerError
