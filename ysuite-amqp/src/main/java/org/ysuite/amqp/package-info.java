/**
 * AMQP 0-9-1 with ysuite between the application threads and RabbitMQ's {@code amqp-client}: an
 * {@link org.ysuite.amqp.AmqpPublisher} whose {@link org.ysuite.amqp.PublisherWriter}s (one per
 * application thread, each over its own {@link org.ysuite.OffHeapYPipe}) feed one thread that owns
 * the {@code Channel}, publishes with confirms and reports each message's {@link org.ysuite.amqp.Fate}
 * back to its writer; and an {@link org.ysuite.amqp.AmqpConsumer} that hands deliveries to an
 * application thread through a pipe and acknowledges them in batches. See docs/amqp.md.
 */
package org.ysuite.amqp;
