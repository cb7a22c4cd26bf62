#!/bin/sh
# The layers' rule (docs/DESIGN.md, "Layers"): app/views never includes app/run; app/results
# includes neither app/views nor app/run; app/run includes no view; and outside app/run (the
# engine and the benches aside) nothing tokenizes, loads a model, builds a backend or computes
# attention. Prints each offending line and exits 1.
#   layers.sh SOURCE_ROOT
cd "$1/app" || exit 2
status=0
report() {  # report WHAT LINES: fails when LINES is not empty
  if [ -n "$2" ]; then
    echo "layers: $1:"
    echo "$2"
    status=1
  fi
}
code() { grep -rnE "$1" --include=*.cpp --include=*.hpp "$2" | grep -vE '^[^:]+:[0-9]+: *///'; }
report "app/views includes app/run" "$(code '#include "run/' views)"
report "app/results includes app/views or app/run" "$(code '#include "(views|run)/' results)"
report "app/run includes app/views" "$(code '#include "views/' run)"
calls='(^|[^A-Za-z_.>:])(tokenize|generate|headRoles|runSynthetic|computeAttention|computeAttentionCpu|decodeWithCache|scoreText|saturationMonteCarlo|saturationOfSentence|makeCpuBackend|inspectModel|readModelConfig)\(|\.encode\(|runIds\(|(PretrainedModel|Translator)::load\(|selectBackend\([^)]|SyntheticModel\('
report "a tokenizer, model loader, backend or attention call outside app/run" \
  "$(code "$calls" . | grep -vE '^\./(run|bench)/')"
exit $status
