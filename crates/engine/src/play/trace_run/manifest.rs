//! Asking an engine for its manifest (`manifest`, answered by `manifest {json}` on one line).

use trace::Manifest;

use super::settings::TraceSettings;
use crate::play::uci_client::UciError;

/// An engine's manifest: its JSON text as the engine gave it, and the manifest read from it.
#[derive(Clone, Debug)]
pub struct EngineManifest {
    /// The JSON text (one line, as answered).
    pub json: String,
    /// The manifest, validated.
    pub manifest: Manifest,
}

/// Starts the engine, sends `manifest` and reads the answer `manifest {json}` (other lines
/// before it are ignored), validating it as a manifest. Errors name the engine: it does not
/// start, does not answer within the time-out, exits, or answers an invalid manifest.
pub fn ask_manifest(settings: &TraceSettings) -> Result<EngineManifest, UciError> {
    let mut engine = settings.engine.start()?;
    let command = settings.engine.command().to_string();
    let origin = format!("the manifest of engine `{command}`");
    engine.ask(&["manifest"], "manifest", settings.timeout, None, |line| {
        let Some(json) = line.trim().strip_prefix("manifest") else {
            return Ok(None);
        };
        if !json.is_empty() && !json.starts_with(char::is_whitespace) {
            return Ok(None);
        }
        let json = json.trim().to_string();
        let manifest = Manifest::from_json(&json, &origin).map_err(|e| e.to_string())?;
        Ok(Some(EngineManifest { json, manifest }))
    })
}

/// Reads a manifest file (JSON), keeping its text for the progress file's fingerprint.
pub fn load_manifest(path: &std::path::Path) -> Result<EngineManifest, crate::error::EngineError> {
    let json = std::fs::read_to_string(path)
        .map_err(|e| crate::error::EngineError::io("read", path, e))?;
    let manifest = Manifest::from_json(&json, &path.display().to_string())?;
    Ok(EngineManifest { json, manifest })
}

/// Writes an engine's manifest to `path` as indented JSON, atomically.
pub fn write_manifest(
    path: &std::path::Path,
    m: &EngineManifest,
) -> Result<(), crate::error::EngineError> {
    let value: serde_json::Value = serde_json::from_str(&m.json).map_err(|e| {
        crate::error::EngineError::Options(format!("{}: not JSON: {e}", m.manifest.origin()))
    })?;
    let mut text = serde_json::to_string_pretty(&value)
        .map_err(|e| crate::error::EngineError::Options(format!("{}: {e}", m.manifest.origin())))?;
    text.push('\n');
    fsutil::atomic::write(path, text).map_err(|e| crate::error::EngineError::io("write", path, e))
}
