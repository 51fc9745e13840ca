/**
 * Configuration: {@link dev.pulsebus.config.Config} reads a TOML file (framework settings and one table
 * per module) with environment overrides into immutable snapshots, writes changes made from code to a
 * runtime file beside it, and follows edits of the files while the bot runs.
 */
package dev.pulsebus.config;
