package hygiene

// ruleDisplayBlocks is the rule id recorded by this file (step 3); the
// blocks are removed by normalizeAssistantBlocks (assistant_blocks.go).
const ruleDisplayBlocks = "assistant/display-blocks"

// managedDisplayBlockTypes are block types shown to users but never replayed.
var managedDisplayBlockTypes = map[string]bool{"attachment": true, "attachment_error": true, "audio": true, "image": true, "video": true}
