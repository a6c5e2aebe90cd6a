//! `self-repair install` / `uninstall` without the plugin manager: our hooks and permission
//! rules in Claude Code's settings, the agents and skill copied into `.claude/`, a manifest so
//! uninstall removes exactly what install added; plus the plugin's `hooks/hooks.json`.

mod atomic_write;
mod bundle_file;
mod change_set;
mod file_read;
mod hook_registration;
mod hook_target;
mod install_error;
mod install_manifest;
mod install_plan;
mod install_root;
mod install_spec;
mod installed_files;
mod merge_driver;
mod plugin_hooks;
mod scope;
mod settings_document;
mod status_line;
mod status_line_install;
mod template_source;
mod uninstall_plan;

pub use bundle_file::{BundleFile, embedded_bundle};
pub use change_set::FileChange;
pub use hook_registration::registers_stop_hook;
pub use install_error::InstallError;
pub use install_manifest::{
    FileRecord, HookRecord, InstallManifest, MANIFEST_SCHEMA_VERSION, OriginalSettings,
    SettingsRecord, agents_installed_by_command, read_manifest,
};
pub use install_plan::{InstallPlan, plan_install};
pub use install_root::InstallRoot;
pub use install_spec::{InstallSpec, binary_resolves_from_path};
pub use installed_files::{InstalledFileState, installed_file_states};
pub use merge_driver::{
    MERGE_DRIVER, MergeDriverRegistration, merge_driver_attributes, merge_driver_command,
    merge_driver_registered, register_merge_driver, unregister_merge_driver,
};
pub use plugin_hooks::hooks_json_for_plugin;
pub use scope::Scope;
pub use status_line::{REFRESH_SECONDS, StatusLineRecord};
pub use status_line_install::{
    STATUS_LINE_MANIFEST, plan_status_line_install, plan_status_line_uninstall,
};
pub use template_source::load_template;
pub use uninstall_plan::{SettingsOutcome, UninstallPlan, plan_uninstall};
