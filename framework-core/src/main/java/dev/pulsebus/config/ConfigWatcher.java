package dev.pulsebus.config;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows edits of the configuration's files: on a daemon thread, an edit of either file (in their
 * directory) runs {@code onEdit} after a short pause that lets the editor finish writing.
 */
final class ConfigWatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Config.class);

    private final WatchService service;

    private ConfigWatcher(WatchService service) {
        this.service = service;
    }

    /**
     * Watches {@code file} and {@code runtimeFile} until {@code closed} or {@link #close}; null when their
     * directory is missing or cannot be watched (logged: edits then need a restart).
     */
    static @Nullable ConfigWatcher start(Path file, Path runtimeFile, BooleanSupplier closed, Runnable onEdit) {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            return null;
        }
        WatchService service = null;
        try {
            service = FileSystems.getDefault().newWatchService();
            dir.register(service, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_CREATE);
        } catch (IOException e) {
            if (service != null) {
                new ConfigWatcher(service).close();
            }
            LOG.warn("Cannot watch {} for edits: {}; edits need a restart", dir, e.toString());
            return null;
        }
        Set<Path> names = Set.of(file.getFileName(), runtimeFile.getFileName());
        WatchService watched = service;
        Thread.ofPlatform().daemon().name("pulsebus-config-watch").start(() -> {
            try {
                while (!closed.getAsBoolean()) {
                    WatchKey key = watched.take();
                    boolean ours = key.pollEvents().stream().anyMatch(e -> names.contains((Path) e.context()));
                    key.reset();
                    if (ours) {
                        Thread.sleep(50); // let the editor finish writing
                        onEdit.run();
                    }
                }
            } catch (InterruptedException | ClosedWatchServiceException e) {
                // closed
            }
        });
        return new ConfigWatcher(service);
    }

    @Override
    public void close() {
        try {
            service.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
