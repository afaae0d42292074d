# Writes the text of a transform schedule (.mlir) as a C++ raw string literal,
# so that the schedule the compiler applies is the readable file in the source
# tree. Usage: cmake -DINPUT=x.mlir -DOUTPUT=x.inc -P EmbedSchedule.cmake
file(READ "${INPUT}" text)
string(FIND "${text}" ")schedule\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter")
endif()
file(WRITE "${OUTPUT}.tmp" "R\"schedule(${text})schedule\"\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
