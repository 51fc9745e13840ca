package dev.pulsebus.example;

import dev.pulsebus.kv.Kv;
import dev.pulsebus.storage.Storage;
import java.nio.file.Path;
import java.time.Duration;

public final class StorageExample {
    public static void main(String[] args) {
        // SQLite in WAL mode at <dir>/pulsebus.db; a JDBC URL picks PostgreSQL or MariaDB instead.
        try (Storage storage = Storage.builder().dataDir(Path.of(args[0])).open()) {
            Kv kv = storage.kv().namespace("weather");              // one namespace per module
            kv.set("last-city", "Tokyo");                           // returns once committed
            kv.set("session", "abc", Duration.ofMinutes(30));       // expires on its own
            kv.setAsync("hits", "1").thenRun(() -> System.out.println("hits stored"))
                    .toCompletableFuture().join();                  // async: done when committed
            System.out.println("last city: " + kv.get("last-city")); // cached read
            System.out.println("swapped: " + kv.compareAndSet("hits", "1", "2"));
            System.out.println("keys: " + kv.keys("", 10));
        }
    }
}
