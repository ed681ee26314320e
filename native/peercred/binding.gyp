{
  "targets": [
    {
      "target_name": "peercred",
      "sources": ["peercred.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"],
      "xcode_settings": { "OTHER_CFLAGS": ["-Wall", "-O2"] }
    }
  ]
}
