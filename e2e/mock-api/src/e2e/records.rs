//! Questions the scenarios ask of the recorded requests.

use serde_json::Value;

use crate::recorded_request::RecordedRequest;
use crate::thread::item_of_prompt;

/// Every `Agent` call input the server answered the main thread with, in order.
pub fn agent_launches(records: &[RecordedRequest]) -> Vec<Value> {
    let mut main: Vec<&RecordedRequest> = records
        .iter()
        .filter(|r| r.thread == "main" && r.status == 200)
        .collect();
    main.sort_by_key(|r| r.seq);
    main.iter()
        .flat_map(|r| r.tool_inputs.iter())
        // Bash calls carry `command`; Agent calls carry `prompt` and `description`.
        .filter(|input| input.get("prompt").is_some() && input.get("description").is_some())
        .cloned()
        .collect()
}

/// The item ids of [`agent_launches`], in order (duplicates kept).
pub fn launched_items(records: &[RecordedRequest]) -> Vec<String> {
    agent_launches(records)
        .iter()
        .filter_map(|i| i.get("prompt").and_then(Value::as_str))
        .filter_map(item_of_prompt)
        .collect()
}

/// The model ids item `id`'s sub-agents were called with, in arrival order, consecutive
/// repeats collapsed.
pub fn item_models(records: &[RecordedRequest], id: &str) -> Vec<String> {
    let label = format!("item:{id}");
    let mut mine: Vec<&RecordedRequest> = records.iter().filter(|r| r.thread == label).collect();
    mine.sort_by_key(|r| r.seq);
    let mut models: Vec<String> = Vec::new();
    for record in mine {
        let model = record.model.clone().unwrap_or_default();
        if models.last() != Some(&model) {
            models.push(model);
        }
    }
    models
}
