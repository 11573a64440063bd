# Turn a file into a C array so the binary carries it (used for pins.yaml).
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
file(WRITE ${OUT}
  "/* Generated from pins.yaml by cmake/embed.cmake; do not edit. */\n"
  "#include <stddef.h>\n"
  "extern const char pyrt_pins_builtin_yaml[];\n"
  "extern const size_t pyrt_pins_builtin_len;\n"
  "const char pyrt_pins_builtin_yaml[] = {${body} 0};\n"
  "const size_t pyrt_pins_builtin_len = ${bytes};\n")
