{
  "targets": [
    {
      "target_name": "fd_relay",
      "sources": ["fd-relay.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    },
    {
      "target_name": "socket_relay",
      "sources": ["socket-relay.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    },
    {
      "target_name": "preview_front",
      "sources": ["preview-front.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    },
    {
      "target_name": "beneath",
      "sources": ["beneath.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    },
    {
      "target_name": "rg-confined",
      "type": "executable",
      "sources": ["rg-confined.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
